/**
 * End-to-end: `gateway status`, `start` and `stop` drive the background server of a data dir,
 * found through `server.json`; stop ends exactly that pid.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { withHarness } from "./support/gateway_harness.ts";
import { pollUntil } from "./support/poll_until.ts";
import { pidAlive as alive } from "../src/config/server_state.ts";

Deno.test("gateway status, start and stop manage the background server of a data dir", async (t) => {
  const files = {
    "gateway.json": '{ "port": 0 }\n',
    "tools/echo.ts":
      "/** Echo. @module */\n/** Echoes. */\nexport function echo(args: { v: string }): string {\n  return args.v;\n}\n",
  };
  await withHarness({ files }, async (gw) => {
    await t.step("status says not running and exits non-zero when no server runs", async () => {
      const result = await gw.cli(["status"]);
      assert.notEqual(result.code, 0);
      assert.match(result.stdout, /^not running \(root .* \[flag\], data dir .*\)/);
      const json = await gw.cli(["status", "--json"]);
      assert.notEqual(json.code, 0);
      assert.deepEqual(JSON.parse(json.stdout), {
        running: false,
        root: gw.root,
        dataDir: gw.dataDir,
      });
    });

    let pid = 0;
    await t.step("start runs a server in the background and reports its pid and port", async () => {
      const result = await gw.cli(["start"]);
      assert.equal(result.code, 0, result.stderr);
      const match = /^started: pid (\d+), port (\d+), root (.*)\n$/.exec(result.stdout);
      assert.ok(match, result.stdout);
      pid = Number(match[1]);
      assert.ok(alive(pid));
      const state = JSON.parse(await Deno.readTextFile(join(gw.dataDir, "server.json")));
      assert.equal(state.pid, pid);
      assert.equal(state.port, Number(match[2]));
      assert.equal(match[3], gw.root);
    });

    await t.step("a second start finds the running server", async () => {
      const result = await gw.cli(["start"]);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, new RegExp(`^already running: pid ${pid},`));
    });

    await t.step("status shows the running server and its namespaces", async () => {
      const text = await pollUntil("echo to be ready in status", async () => {
        const result = await gw.cli(["status"]);
        assert.equal(result.code, 0, result.stderr);
        return /echo: ready, 1 tool\b/.test(result.stdout) ? result.stdout : undefined;
      });
      assert.match(text, new RegExp(`^running: pid ${pid}, port \\d+, version \\d+\\.\\d+\\.\\d+`));
      assert.ok(text.includes(`root: ${gw.root}\n`), text);
    });

    await t.step(
      "stop ends the server's process and its children, and removes server.json",
      async () => {
        const children = (await Deno.readTextFile(`/proc/${pid}/task/${pid}/children`))
          .trim().split(/\s+/).filter((p) => p !== "").map(Number);
        assert.ok(children.length > 0, "the server has no tool host or runner processes");
        const result = await gw.cli(["stop"]);
        assert.equal(result.code, 0, result.stderr);
        assert.equal(result.stdout, `stopped gateway server (pid ${pid}, root ${gw.root})\n`);
        await pollUntil(
          "the server process to exit",
          () => Promise.resolve(alive(pid) ? undefined : true),
          {
            timeoutMs: 10_000,
          },
        );
        await pollUntil(
          "the server's children to exit",
          () => Promise.resolve(children.some(alive) ? undefined : true),
          { timeoutMs: 10_000 },
        );
        await assert.rejects(Deno.stat(join(gw.dataDir, "server.json")), Deno.errors.NotFound);
        const status = await gw.cli(["status"]);
        assert.notEqual(status.code, 0);
        assert.match(status.stdout, /^not running/);
      },
    );

    await t.step(
      "a start right after a stop finds the data dir free, even while a run held the stop",
      async () => {
        const started = await gw.cli(["start"]);
        assert.equal(started.code, 0, started.stderr);
        // A run in flight keeps the stopping server (and its data dir's lock) for its grace
        // period, after server.json is gone: the stop returns only once the lock is free.
        const client = await gw.client();
        const begun = new Promise<void>((resolve) => {
          const off = client.onNotification((n) => {
            if (n.method !== "run.output") return;
            off();
            resolve();
          });
        });
        const run = client.request<{ ok: boolean }>("exec", {
          source: 'console.log("begun");\nawait new Promise((r) => setTimeout(r, 1500));\n"done"',
          check: false,
          stream: true,
        });
        await begun;
        const stopped = await gw.cli(["stop"]);
        assert.equal(stopped.code, 0, stopped.stderr);
        const again = await gw.cli(["start"]);
        assert.equal(again.code, 0, again.stderr);
        assert.equal((await run).ok, true, "the run finished in the grace period");
        await client.close().catch(() => undefined);
        const last = await gw.cli(["stop"]);
        assert.equal(last.code, 0, last.stderr);
      },
    );

    await t.step("stop with no server says so", async () => {
      const result = await gw.cli(["stop"]);
      assert.equal(result.code, 0);
      assert.match(result.stdout, /no gateway server is running/);
    });
  });
});
