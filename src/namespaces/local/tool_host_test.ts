import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { ToolCallError } from "../namespace.ts";
import { hostPermissionFlags, ToolHost, type ToolHostOptions } from "./tool_host.ts";
import { ToolModuleLoadError } from "./tool_module_load_error.ts";
import { rejection } from "../../../test/support/async_assertions.ts";
import { captureLogger } from "../../../test/support/capture_logger.ts";
import { pollUntil } from "../../../test/support/poll_until.ts";

const FIXTURES = new URL("../../../test/fixtures/tool_modules/", import.meta.url);

function fixturePath(name: string): string {
  return fileURLToPath(new URL(name, FIXTURES));
}

/** Runs `body` with a host on fixture `name`, always stopping it. */
async function withHost(
  name: string,
  overrides: Partial<ToolHostOptions>,
  body: (host: ToolHost, logger: ReturnType<typeof captureLogger>) => Promise<void>,
): Promise<void> {
  const logger = captureLogger();
  const host = new ToolHost({
    name: name.replace(/\.ts$/, ""),
    file: fixturePath(name),
    dataDir: "/tmp/gateway-test-data",
    // Far past what an import takes on a loaded machine: only the hang test waits one out.
    loadTimeoutMs: 30_000,
    abortGraceMs: 400,
    killGraceMs: 500,
    restartDelayMs: 100,
    logger,
    ...overrides,
  });
  try {
    await body(host, logger);
  } finally {
    await host.stop();
  }
}

/** Waits until no process of group `pgid` is left; throws naming the group if it never goes. */
async function groupGone(pgid: number): Promise<true> {
  return await pollUntil(`process group ${pgid} to be gone`, () => {
    try {
      Deno.kill(-pgid, 0 as unknown as Deno.Signal);
      return false;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return true;
      throw error;
    }
  });
}

Deno.test("call() returns the tool's value and hands the module its settings and data dir", async () => {
  await withHost("faulty_tools.ts", { settings: { region: "eu" } }, async (host) => {
    const started = performance.now();
    await host.start();
    const ready = performance.now() - started;
    assert.equal(host.state().state, "ready");
    assert.deepEqual(await host.call("echo", { value: [1, { a: "b" }] }, { timeoutMs: 5_000 }), [
      1,
      { a: "b" },
    ]);
    assert.deepEqual(await host.call("settings", undefined, { timeoutMs: 5_000 }), {
      settings: { region: "eu" },
      dataDir: "/tmp/gateway-test-data",
    });
    const loop = performance.now();
    for (let i = 0; i < 200; i++) await host.call("echo", { value: i }, { timeoutMs: 5_000 });
    console.log(
      `tool host: ready in ${ready.toFixed(0)} ms, ` +
        `${((performance.now() - loop) / 200).toFixed(2)} ms per sequential call`,
    );
  });
});

Deno.test("call() rejects with ToolError carrying the message when a tool throws or rejects", async () => {
  await withHost("faulty_tools.ts", {}, async (host) => {
    await host.start();
    const thrown = await rejection(host.call("fail", { message: "bad key" }, { timeoutMs: 5_000 }));
    assert.ok(thrown instanceof ToolCallError);
    assert.equal(thrown.kind, "ToolError");
    assert.equal(thrown.message, "bad key");
    assert.match(String((thrown.cause as Error).stack), /faulty_tools\.ts/);
    const rejected = await rejection(
      host.call("reject", { message: "later" }, { timeoutMs: 5_000 }),
    );
    assert.ok(rejected instanceof ToolCallError);
    assert.equal(rejected.message, "later");
    const pid = host.pid;
    assert.equal(await host.call("echo", { value: 1 }, { timeoutMs: 5_000 }), 1);
    assert.equal(host.pid, pid);
  });
});

Deno.test("call() survives thousands of throws without the host growing", async () => {
  await withHost("faulty_tools.ts", {}, async (host) => {
    await host.start();
    const rss = async () => {
      const status = await Deno.readTextFile(`/proc/${host.pid}/status`);
      return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? "0") / 1024;
    };
    const throwMany = async (count: number) => {
      const batch = [];
      for (let i = 0; i < count; i++) {
        batch.push(host.call("fail", { message: `n${i}` }, { timeoutMs: 10_000 }).catch(() => {}));
      }
      await Promise.all(batch);
    };
    await throwMany(500);
    const before = await rss();
    await throwMany(3_000);
    const after = await rss();
    assert.ok(after - before < 20, `RSS grew from ${before} MB to ${after} MB`);
    assert.equal(await host.call("echo", { value: "alive" }, { timeoutMs: 5_000 }), "alive");
  });
});

Deno.test("call() reports values JSON cannot carry, and stray rejections do not end the host", async () => {
  await withHost("faulty_tools.ts", {}, async (host, logger) => {
    await host.start();
    const error = await rejection(host.call("bigint", undefined, { timeoutMs: 5_000 }));
    assert.ok(error instanceof ToolCallError);
    assert.match(error.message, /The result of "bigint" cannot be sent as JSON/);
    assert.equal(await host.call("stray", undefined, { timeoutMs: 5_000 }), "still here");
    await pollUntil(
      "the stray rejection in the log",
      () => logger.lines.some((l) => l.includes("stray rejection")),
    );
    assert.equal(await host.call("echo", { value: 2 }, { timeoutMs: 5_000 }), 2);
  });
});

Deno.test("a crash fails the call in flight and the host restarts with back-off", async () => {
  const states: string[] = [];
  await withHost(
    "faulty_tools.ts",
    { onStateChange: (s) => states.push(s.state) },
    async (host) => {
      await host.start();
      const firstPid = host.pid;
      assert.ok(firstPid !== undefined);
      const error = await rejection(host.call("crash", { code: 3 }, { timeoutMs: 5_000 }));
      assert.ok(error instanceof ToolCallError);
      assert.equal(error.kind, "ToolError");
      assert.equal(
        error.message,
        `tool host for "faulty_tools" exited with code 3 during the call`,
      );
      const state = host.state();
      assert.equal(state.state, "waiting");
      if (state.state === "waiting") {
        assert.equal(state.reason, `tool host for "faulty_tools" exited with code 3`);
      }
      const meanwhile = await rejection(host.call("echo", { value: 1 }, { timeoutMs: 5_000 }));
      assert.ok(meanwhile instanceof ToolCallError);
      assert.equal(meanwhile.kind, "NamespaceUnavailable");
      await pollUntil("the host to be ready", () => host.state().state === "ready", {
        timeoutMs: 5_000,
      });
      assert.notEqual(host.pid, firstPid);
      assert.ok(await groupGone(firstPid));
      assert.equal(await host.call("echo", { value: "back" }, { timeoutMs: 5_000 }), "back");
    },
  );
  assert.deepEqual(states, ["starting", "ready", "waiting", "starting", "ready", "stopped"]);
});

Deno.test("start() fails within the load timeout and kills the group when the import hangs", async () => {
  for (const fixture of ["hangs_at_import.ts", "busy_at_import.ts"]) {
    await withHost(fixture, { loadTimeoutMs: 1_000, restartDelayMs: 60_000 }, async (host) => {
      const starting = host.start();
      const pgid = host.pid;
      assert.ok(pgid !== undefined);
      const error = await rejection(starting);
      assert.ok(error instanceof ToolModuleLoadError);
      assert.equal(
        error.message,
        `Cannot load tool module "tools/${fixture}": import did not finish within 1000 ms`,
      );
      assert.ok(await groupGone(pgid), `process group ${pgid} still exists`);
      const state = host.state();
      assert.equal(state.state, "waiting");
    });
  }
});

Deno.test("start() reports the first error line and module line when the import throws", async () => {
  await withHost("throws_at_import.ts", { restartDelayMs: 60_000 }, async (host) => {
    const starting = host.start();
    const pgid = host.pid ?? -1;
    const error = await rejection(starting);
    assert.ok(error instanceof ToolModuleLoadError);
    assert.equal(
      error.message,
      `Cannot load tool module "tools/throws_at_import.ts": import failed: database is not ` +
        `configured (line 3)`,
    );
    assert.ok(await groupGone(pgid));
    const call = await rejection(host.call("ping", undefined, { timeoutMs: 1_000 }));
    assert.ok(call instanceof ToolCallError);
    assert.equal(call.kind, "NamespaceUnavailable");
    assert.match(call.message, /import failed: database is not configured/);
  });
});

Deno.test("start() reports a syntax error with its line", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/tools`);
    await Deno.copyFile(fixturePath("syntax_error.txt"), `${dir}/tools/broken.ts`);
    await withHost("syntax_error.txt", { file: `${dir}/tools/broken.ts` }, async (host) => {
      const error = await rejection(host.start());
      assert.ok(error instanceof ToolModuleLoadError);
      assert.equal(
        error.message,
        `Cannot load tool module "tools/broken.ts": import failed: SyntaxError: Expression ` +
          `expected (line 4)`,
      );
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a call that ignores its abort past the grace restarts the host and fails the others", async () => {
  await withHost("faulty_tools.ts", {}, async (host, logger) => {
    await host.start();
    const pid = host.pid ?? -1;
    const bystander = rejection(host.call("sleep", { ms: 10_000 }, { timeoutMs: 20_000 }));
    const error = await rejection(host.call("hang", undefined, { timeoutMs: 200 }));
    assert.ok(error instanceof ToolCallError);
    assert.equal(error.kind, "ToolTimeout");
    const victim = await bystander;
    assert.ok(victim instanceof ToolCallError);
    assert.equal(victim.kind, "NamespaceUnavailable");
    assert.equal(
      victim.message,
      `tool host for "faulty_tools" restarted: call "hang" ignored its abort signal for 400 ms`,
    );
    assert.ok(await groupGone(pid));
    await pollUntil("the host to be ready", () => host.state().state === "ready", {
      timeoutMs: 5_000,
    });
    assert.equal(await host.call("echo", { value: "fresh" }, { timeoutMs: 5_000 }), "fresh");
    assert.ok(logger.lines.some((l) => l.startsWith("warn") && l.includes("ignored its abort")));
  });
});

Deno.test("a tool that blocks the event loop is killed after the grace", async () => {
  await withHost("faulty_tools.ts", {}, async (host) => {
    await host.start();
    const pid = host.pid ?? -1;
    const error = await rejection(host.call("busy", { ms: 30_000 }, { timeoutMs: 200 }));
    assert.ok(error instanceof ToolCallError);
    assert.equal(error.kind, "ToolTimeout");
    assert.ok(await groupGone(pid));
    await pollUntil("the host to be ready", () => host.state().state === "ready", {
      timeoutMs: 5_000,
    });
  });
});

Deno.test("console output and raw stdout writes never corrupt the protocol", async () => {
  await withHost("noisy_tools.ts", {}, async (host, logger) => {
    await host.start();
    assert.equal(await host.call("shout", { text: "hi" }, { timeoutMs: 5_000 }), "HI");
    assert.equal(await host.call("shout", { text: "again" }, { timeoutMs: 5_000 }), "AGAIN");
    // Results travel on the host's socket; stdout noise is logged once its line ends (here, at
    // the host's end).
    await host.stop();
    const logged = logger.lines.join("\n");
    assert.match(logged, /info \[tools\/noisy_tools\.ts\] noisy module loading/);
    assert.match(logged, /info \[tools\/noisy_tools\.ts\] shouting hi/);
    // What it wrote to stdout is its output too, logged and never read as a message.
    assert.match(logged, /info \[tools\/noisy_tools\.ts stdout\] .*raw noise without newline/);
  });
});

Deno.test("a host with configured permissions gets only those, plus what hosting needs", async () => {
  await withHost("faulty_tools.ts", { permissions: {}, settings: { a: 1 } }, async (host) => {
    assert.ok(!host.command().includes("--allow-all"));
    await host.start();
    assert.deepEqual(await host.call("settings", undefined, { timeoutMs: 5_000 }), {
      settings: { a: 1 },
      dataDir: "/tmp/gateway-test-data",
    });
    const denied = await rejection(host.call("env", { name: "HOME" }, { timeoutMs: 5_000 }));
    assert.ok(denied instanceof ToolCallError);
    assert.equal(denied.kind, "ToolError");
    assert.match(denied.message, /Requires env access to "HOME"/);
  });
});

Deno.test("stop() fails calls in flight, kills the group and ends retries", async () => {
  const logger = captureLogger();
  const host = new ToolHost({
    name: "faulty",
    file: fixturePath("faulty_tools.ts"),
    dataDir: "/tmp/gateway-test-data",
    killGraceMs: 500,
    logger,
  });
  try {
    await host.start();
    const pid = host.pid ?? -1;
    const pending = rejection(host.call("hang", undefined, { timeoutMs: 10_000 }));
    await host.stop();
    const error = await pending;
    assert.ok(error instanceof ToolCallError);
    assert.equal(error.kind, "NamespaceUnavailable");
    assert.equal(error.message, `tool host for "faulty" was stopped`);
    assert.ok(await groupGone(pid));
    assert.deepEqual(host.state(), { state: "stopped" });
    const after = await rejection(host.call("echo", { value: 1 }, { timeoutMs: 1_000 }));
    assert.ok(after instanceof ToolCallError);
    assert.equal(after.kind, "NamespaceUnavailable");
  } finally {
    await host.stop();
  }
});

Deno.test("stop() with drainMs lets calls in flight finish first", async () => {
  await withHost("faulty_tools.ts", {}, async (host) => {
    await host.start();
    const call = host.call("sleep", { ms: 300 }, { timeoutMs: 5_000 });
    await host.stop({ drainMs: 5_000 });
    assert.equal(await call, 300);
  });
});

Deno.test("hostPermissionFlags() grants all by default and adds what hosting needs otherwise", () => {
  assert.deepEqual(hostPermissionFlags(undefined, "/root/tools/kv.ts"), ["--allow-all"]);
  assert.deepEqual(hostPermissionFlags({}, "/root/tools/kv.ts"), [
    "--allow-read=/root/tools",
    "--allow-env=GATEWAY_DATA_DIR,GATEWAY_TOOL_SETTINGS",
  ]);
  assert.deepEqual(
    hostPermissionFlags(
      { read: ["./data"], env: true, net: ["api.example.com"] },
      "/root/tools/kv.ts",
    ),
    [
      "--allow-net=api.example.com",
      "--allow-read=./data,/root/tools",
      "--allow-env",
      "--allow-import=api.example.com",
    ],
  );
  assert.deepEqual(hostPermissionFlags({ read: true, net: true }, "/r/tools/a.ts"), [
    "--allow-net",
    "--allow-read",
    "--allow-env=GATEWAY_DATA_DIR,GATEWAY_TOOL_SETTINGS",
    "--allow-import",
  ]);
});

Deno.test("a host process takes calls on its own socket; its module cannot reach it, nor read a token in its command line", async () => {
  await withHost("channel_probe.ts", { permissions: {} }, async (host) => {
    await host.start();
    const cmdline = (await Deno.readTextFile(`/proc/${host.pid}/cmdline`)).split("\0");
    const net = cmdline.find((arg) => arg.startsWith("--allow-net=unix:"));
    assert.ok(net !== undefined, `no socket grant in ${cmdline.join(" ")}`);
    const path = net.slice("--allow-net=unix:".length);
    assert.ok(!cmdline.some((arg) => /token/i.test(arg)));
    assert.deepEqual(await host.call("probe", { path }, { timeoutMs: 5_000 }), {
      read: "prompt",
      write: "prompt",
      net: "prompt",
      connect: "NotCapable",
    });
    // Joined: the socket is gone, so nothing else can connect.
    await assert.rejects(() => Deno.stat(path), Deno.errors.NotFound);
  });
});
