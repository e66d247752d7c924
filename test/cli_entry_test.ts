import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { type GatewayHarness, REPO, withHarness } from "./support/gateway_harness.ts";
import { pollUntil } from "./support/poll_until.ts";

// The installed command (src/cli/fast_main.bundle.js, what the harness spawns) serves a simple
// `exec` itself and hands everything else to the full CLI in a child process.

/** Runs `gateway server` in the foreground; resolves once its server.json names its pid. */
async function foregroundServer(gw: GatewayHarness, options: { detached?: boolean } = {}) {
  const child = gw.spawnCli(["server"], options);
  const output = Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ]);
  try {
    const state = await pollUntil("the foreground server's server.json", async () => {
      const text = await Deno.readTextFile(join(gw.dataDir, "server.json"));
      return JSON.parse(text) as { pid: number };
    }, { timeoutMs: 30_000 });
    return { child, output, state };
  } catch (error) {
    // Never up: end what was started (its whole group when it leads one) before failing.
    Deno.kill(options.detached ? -child.pid : child.pid, "SIGKILL");
    await child.status;
    await output.catch(() => undefined);
    throw error;
  }
}

/** A run answers: the server is up and handles signals (server.json is written before). */
async function assertRunsOne(gw: GatewayHarness): Promise<void> {
  const client = await gw.client();
  try {
    const run = await client.request<{ ok: boolean }>("exec", { source: "1", check: false });
    assert.equal(run.ok, true);
  } finally {
    client.close();
  }
}

/**
 * The command exited 0 by itself (no signal ended it), and the server it ran is gone too:
 * it stopped and removed its server.json.
 */
async function assertStoppedCleanly(
  gw: GatewayHarness,
  server: Awaited<ReturnType<typeof foregroundServer>>,
): Promise<void> {
  const status = await server.child.status;
  const [, stderr] = await server.output;
  assert.equal(status.signal, null, stderr);
  assert.equal(status.code, 0, stderr);
  await assert.rejects(Deno.stat(join(gw.dataDir, "server.json")), Deno.errors.NotFound);
  assert.throws(() => Deno.kill(server.state.pid, "SIGCONT"), Deno.errors.NotFound);
}

Deno.test("the installed command hands a verb it does not serve to the full CLI, exit code and all", async () => {
  await withHarness({}, async (gw) => {
    const unknown = await gw.cli(["frobnicate"]);
    assert.equal(unknown.code, 2, unknown.stderr);
    assert.match(unknown.stderr, /Unknown command "frobnicate"/);
    const version = await gw.cli(["--version"]);
    assert.equal(version.code, 0, version.stderr);
    assert.match(version.stdout, /\d+\.\d+\.\d+/);
  });
});

Deno.test("the installed command passes piped stdin to the full CLI", async () => {
  await withHarness({}, async (gw) => {
    // `-` (source on stdin) is not the fast path's: the full CLI reads the pipe.
    const run = await gw.cli(["exec", "--no-check", "-"], { stdin: "6 * 7" });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout.trim(), "42");
  });
});

Deno.test("SIGTERM to the installed command stops the full CLI it runs (gateway server)", async () => {
  await withHarness({ files: { "gateway.json": '{ "port": 0 }\n' } }, async (gw) => {
    const { child, output, state } = await foregroundServer(gw);
    assert.notEqual(state.pid, child.pid, "the server runs in the full CLI's own process");
    // A run answered: the server is up and handles SIGTERM (server.json is written before).
    await assertRunsOne(gw);
    child.kill("SIGTERM");
    await assertStoppedCleanly(gw, { child, output, state });
  });
});

Deno.test("Ctrl-C at a terminal (SIGINT to the command's whole group) stops gateway server gracefully", async () => {
  await withHarness({ files: { "gateway.json": '{ "port": 0 }\n' } }, async (gw) => {
    // A terminal signals its foreground process group: the installed command and the full CLI
    // it runs both receive the SIGINT, and the command passes its own on — the server must
    // take the second as the same request to stop, not die of it half-way.
    const { child, output, state } = await foregroundServer(gw, { detached: true });
    try {
      await assertRunsOne(gw);
      Deno.kill(-child.pid, "SIGINT");
      await assertStoppedCleanly(gw, { child, output, state });
    } finally {
      try {
        Deno.kill(-child.pid, "SIGKILL");
      } catch {
        // the group is gone
      }
      await child.status;
      await output.catch(() => undefined);
    }
  });
});

Deno.test("a second SIGINT while gateway server stops does not cut the stop short", async () => {
  await withHarness({ files: { "gateway.json": '{ "port": 0 }\n' } }, async (gw) => {
    const { child, output, state } = await foregroundServer(gw);
    const client = await gw.client();
    try {
      // A run in flight holds the stop in its grace period.
      const begun = new Promise<void>((resolve) => {
        const off = client.onNotification((n) => {
          if (n.method !== "run.output") return;
          off();
          resolve();
        });
      });
      const run = client.request<{ ok: boolean; result: unknown }>("exec", {
        source: 'console.log("begun");\nawait new Promise((r) => setTimeout(r, 1500));\n"done"',
        check: false,
        stream: true,
      });
      await begun;
      Deno.kill(state.pid, "SIGINT");
      // The stop has begun once server.json is gone; then the second signal.
      await pollUntil(
        "the server to begin stopping",
        () => Deno.stat(join(gw.dataDir, "server.json")).then(() => false, () => true),
        { timeoutMs: 10_000 },
      );
      Deno.kill(state.pid, "SIGINT");
      const answered = await run;
      assert.equal(answered.ok, true);
      assert.equal(answered.result, "done");
    } finally {
      client.close();
    }
    const status = await child.status;
    const [, stderr] = await output;
    assert.equal(status.signal, null, stderr);
    assert.equal(status.code, 0, stderr);
  });
});

Deno.test("deno task gateway and the command deno task install installs both run the fast path and the full CLI", async () => {
  await withHarness({ files: { "gateway.json": '{ "port": 0 }\n' } }, async (gw) => {
    const installRoot = await Deno.makeTempDir({ prefix: "gateway-install-" });
    try {
      const config = JSON.parse(await Deno.readTextFile(join(REPO, "deno.json"))) as {
        tasks: Record<string, string>;
      };
      // `deno task install` as written, into a scratch install root instead of ~/.deno.
      const install = config.tasks.install!.split(" ");
      assert.deepEqual(install.slice(0, 2), ["deno", "install"]);
      const installed = await new Deno.Command(Deno.execPath(), {
        args: [...install.slice(1, 2), "--root", installRoot, ...install.slice(2)],
        cwd: REPO,
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(installed.code, 0, new TextDecoder().decode(installed.stderr));
      const env = {
        GATEWAY_DATA_DIR: gw.dataDir,
        GATEWAY_PORT: "0",
        NO_COLOR: "1",
        HOME: Deno.env.get("HOME") ?? gw.cwd,
        PATH: `${dirname(Deno.execPath())}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`,
      };
      const commands: [string, string[]][] = [
        [join(installRoot, "bin", "gateway"), []],
        [Deno.execPath(), ["task", "--quiet", "--cwd", REPO, "gateway"]],
      ];
      for (const [command, prefix] of commands) {
        const run = async (args: string[]) => {
          const out = await new Deno.Command(command, {
            args: [...prefix, "--root", gw.root, ...args],
            cwd: gw.cwd,
            clearEnv: true,
            env,
            stdout: "piped",
            stderr: "piped",
          }).output();
          return {
            code: out.code,
            stdout: new TextDecoder().decode(out.stdout),
            stderr: new TextDecoder().decode(out.stderr),
          };
        };
        // The first exec of all starts the server (full CLI); the others find it (fast path).
        for (const source of ["6 * 7", "6 * 7"]) {
          const exec = await run(["exec", source]);
          assert.equal(exec.code, 0, `${command}: ${exec.stderr}`);
          assert.equal(exec.stdout, "42\n");
        }
        const status = await run(["status"]);
        assert.equal(status.code, 0, `${command}: ${status.stderr}`);
        assert.match(status.stdout, /^running: pid \d+/);
      }
    } finally {
      await Deno.remove(installRoot, { recursive: true });
    }
  });
});
