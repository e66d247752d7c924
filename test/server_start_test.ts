/**
 * End-to-end: how a server starts against what it finds: a port already taken, a stale
 * `server.json` left by a dead server, and a live server already serving the data dir.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { withHarness } from "./support/gateway_harness.ts";
import { boundedCli, minimalEnv } from "./support/bounded_cli.ts";
import { pidAlive as alive } from "../src/config/server_state.ts";
import { pollUntil } from "./support/poll_until.ts";

/** A pid that belonged to a process which has exited (and been reaped). */
async function deadPid(): Promise<number> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", "0"],
    stdout: "null",
    stderr: "null",
  }).spawn();
  await child.status;
  return child.pid;
}

async function serverJson(dataDir: string): Promise<{ pid: number; port: number }> {
  return JSON.parse(await Deno.readTextFile(join(dataDir, "server.json")));
}

Deno.test("gateway server fails with a message naming the port when another program holds it", async () => {
  const holder = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (holder.addr as Deno.NetAddr).port;
  try {
    await withHarness({ files: { "gateway.json": `{ "port": ${port} }\n` } }, async (gw) => {
      // The port comes from gateway.json here, so the harness's GATEWAY_PORT=0 is left out.
      const options = { env: minimalEnv(gw.dataDir), cwd: gw.cwd };
      const foreground = await boundedCli(["--root", gw.root, "server"], options);
      assert.equal(foreground.timedOut, false, "gateway server kept running on a taken port");
      assert.notEqual(foreground.code, 0);
      assert.match(foreground.stderr, new RegExp(`Port ${port} on 127\\.0\\.0\\.1 is in use`));
      assert.match(foreground.stderr, /\$GATEWAY_PORT \(0 picks a free one\)/);

      const background = await boundedCli(["--root", gw.root, "start"], options);
      assert.equal(background.timedOut, false);
      assert.notEqual(background.code, 0);
      assert.match(background.stderr, new RegExp(`Port ${port}\\b.*in use`));
      await assert.rejects(Deno.stat(join(gw.dataDir, "server.json")), Deno.errors.NotFound);
    });
  } finally {
    holder.close();
  }
});

Deno.test("a stale server.json whose pid is dead is ignored and a new server starts", async () => {
  await withHarness({ files: { "gateway.json": '{ "port": 0 }\n' } }, async (gw) => {
    const pid = await deadPid();
    await Deno.mkdir(gw.dataDir, { recursive: true, mode: 0o700 });
    await Deno.writeTextFile(
      join(gw.dataDir, "server.json"),
      JSON.stringify({
        pid,
        host: "127.0.0.1",
        port: 1,
        root: gw.root,
        dataDir: gw.dataDir,
        version: "0.0.0",
        startedAt: new Date(0).toISOString(),
      }),
    );
    const status = await gw.cli(["status"]);
    assert.notEqual(status.code, 0);
    assert.match(status.stdout, /not running/);

    const result = await gw.cli(["exec", "1 + 1"]);
    assert.equal(result.stderr, "");
    assert.equal(result.stdout, "2\n");
    const state = await serverJson(gw.dataDir);
    assert.notEqual(state.pid, pid);
    assert.ok(alive(state.pid));
  });
});

Deno.test("a second gateway server for the same data dir is refused while the first serves", async () => {
  await withHarness({ files: { "gateway.json": '{ "port": 0 }\n' } }, async (gw) => {
    const first = await gw.server();
    const second = await boundedCli(["--root", gw.root, "server"], {
      env: minimalEnv(gw.dataDir),
      cwd: gw.cwd,
    });
    assert.equal(second.timedOut, false, "a second server started for the same data dir");
    assert.notEqual(second.code, 0);
    assert.match(
      second.stderr,
      new RegExp(`already running for data dir .*\\(pid ${first.pid}, port ${first.port}`),
    );
    // The first server is untouched: same server.json, still answering.
    assert.equal((await serverJson(gw.dataDir)).pid, first.pid);
    const health = await fetch(`http://127.0.0.1:${first.port}/health`);
    assert.equal(health.status, 200);
    await health.body?.cancel();
  });
});

// After a crash the pid in server.json can be reused by an unrelated process; a new server must
// check that the recorded port answers /health before refusing to start.
Deno.test({
  name: "a server.json naming a live pid of another program does not block a new server",
  fn: async () => {
    // A live process that is not a gateway (ours, so the harness may signal it on dispose).
    const other = new Deno.Command(Deno.execPath(), {
      args: ["eval", "setTimeout(() => {}, 60_000)"],
      stdout: "null",
      stderr: "null",
    }).spawn();
    try {
      await withHarness({ files: { "gateway.json": '{ "port": 0 }\n' } }, async (gw) => {
        const unused = Deno.listen({ hostname: "127.0.0.1", port: 0 });
        const port = (unused.addr as Deno.NetAddr).port;
        unused.close();
        await Deno.mkdir(gw.dataDir, { recursive: true, mode: 0o700 });
        await Deno.writeTextFile(
          join(gw.dataDir, "server.json"),
          JSON.stringify({
            pid: other.pid,
            host: "127.0.0.1",
            port,
            root: gw.root,
            dataDir: gw.dataDir,
            version: "0.0.0",
            startedAt: new Date(0).toISOString(),
          }),
        );
        const result = await gw.cli(["exec", "1 + 1"]);
        assert.equal(result.stderr, "");
        assert.equal(result.stdout, "2\n");
      });
    } finally {
      try {
        other.kill("SIGKILL");
      } catch {
        // already gone
      }
      await other.status;
    }
  },
});

Deno.test("/health?wait=up is answered once the parts are up, not with an early starting", async () => {
  await withHarness({ files: { "gateway.json": '{ "port": 0 }\n' } }, async (gw) => {
    const server = gw.spawnCli(["server"], { stdin: "null" });
    try {
      // server.json appears as the listener opens, before the parts load.
      const { port } = await pollUntil(
        "server.json written by the listening server",
        () => serverJson(gw.dataDir).catch(() => null),
      );
      const response = await fetch(`http://127.0.0.1:${port}/health?wait=up`);
      const body = await response.json() as { ok: boolean; starting?: boolean };
      assert.equal(body.ok, true);
      // Held until the parts are up; only parts slower than the 1 s bound answer "starting".
      if (body.starting !== true) {
        const plain = await (await fetch(`http://127.0.0.1:${port}/health`)).json();
        assert.deepEqual(plain, { ok: true }, "the parts answer plain /health too");
      }
    } finally {
      server.kill("SIGTERM");
      await server.status;
      await server.stdout.cancel();
      await server.stderr.cancel();
    }
  });
});
