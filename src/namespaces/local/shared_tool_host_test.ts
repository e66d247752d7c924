import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { ToolCallError } from "../namespace.ts";
import { SharedToolHosts } from "./shared_tool_host.ts";
import { runsIsolated, ToolHost, type ToolHostOptions } from "./tool_host.ts";
import { ToolModuleLoadError } from "./tool_module_load_error.ts";
import { rejection } from "../../../test/support/async_assertions.ts";
import { captureLogger } from "../../../test/support/capture_logger.ts";
import { pollUntil } from "../../../test/support/poll_until.ts";

const FIXTURES = new URL("../../../test/fixtures/tool_modules/", import.meta.url);

/** Runs `body` with one shared host and a ToolHost per fixture in it, always stopping all. */
async function withShared(
  fixtures: string[],
  overrides: Partial<ToolHostOptions>,
  body: (
    hosts: ToolHost[],
    logger: ReturnType<typeof captureLogger>,
    shared: SharedToolHosts,
  ) => Promise<void>,
): Promise<void> {
  const logger = captureLogger();
  const shared = new SharedToolHosts({ logger, killGraceMs: 500 });
  const hosts = fixtures.map((name) =>
    new ToolHost({
      name: name.replace(/\.ts$/, ""),
      file: fileURLToPath(new URL(name, FIXTURES)),
      dataDir: "/tmp/gateway-test-data",
      loadTimeoutMs: 2_000,
      abortGraceMs: 400,
      killGraceMs: 500,
      restartDelayMs: 100,
      logger,
      shared,
      ...overrides,
    })
  );
  try {
    await body(hosts, logger, shared);
  } finally {
    await Promise.all(hosts.map((host) => host.stop()));
    await shared.stop();
  }
}

Deno.test("modules in the shared host answer calls and share one process", async () => {
  await withShared(["faulty_tools.ts", "inventory.ts"], {}, async ([faulty, inventory]) => {
    await Promise.all([faulty!.start(), inventory!.start()]);
    assert.deepEqual(await faulty!.call("echo", { value: [1, "a"] }, { timeoutMs: 5_000 }), [
      1,
      "a",
    ]);
    assert.equal(faulty!.pid, inventory!.pid);
  });
});

Deno.test("Deno.exit in one module fails its call alone; it restarts in the same process", async () => {
  await withShared(["faulty_tools.ts", "inventory.ts"], {}, async ([faulty, inventory]) => {
    await Promise.all([faulty!.start(), inventory!.start()]);
    const pid = inventory!.pid;
    const error = await rejection(faulty!.call("crash", { code: 3 }, { timeoutMs: 5_000 }));
    assert.ok(error instanceof ToolCallError);
    assert.equal(error.kind, "ToolError");
    assert.match(error.message, /tool host for "faulty_tools" exited with code 3 during the call/);
    assert.deepEqual(await inventory!.call("count", undefined, { timeoutMs: 5_000 }), {
      total: 0,
      skus: [],
    });
    await pollUntil("faulty_tools to be ready", () => faulty!.state().state === "ready", {
      timeoutMs: 5_000,
    });
    assert.equal(await faulty!.call("echo", { value: 1 }, { timeoutMs: 5_000 }), 1);
    assert.equal(faulty!.pid, pid);
    assert.equal(inventory!.pid, pid);
  });
});

for (const fixture of ["hangs_at_import.ts", "busy_at_import.ts"]) {
  Deno.test(`a module that hangs at import (${fixture}) fails alone after the load timeout`, async () => {
    await withShared(
      [fixture, "inventory.ts"],
      { loadTimeoutMs: 3_000, restartDelayMs: 60_000 },
      async (
        [hung, inventory],
      ) => {
        const [loaded, ready] = await Promise.allSettled([hung!.start(), inventory!.start()]);
        assert.equal(ready.status, "fulfilled");
        assert.equal(loaded.status, "rejected");
        const error = (loaded as PromiseRejectedResult).reason;
        assert.ok(error instanceof ToolModuleLoadError);
        assert.match(error.message, /import did not finish within 3000 ms/);
        assert.deepEqual(await inventory!.call("count", undefined, { timeoutMs: 5_000 }), {
          total: 0,
          skus: [],
        });
      },
    );
  });
}

Deno.test("a call ignoring its abort ends its Worker alone, which restarts", async () => {
  await withShared(["faulty_tools.ts", "inventory.ts"], {}, async ([faulty, inventory], logger) => {
    await Promise.all([faulty!.start(), inventory!.start()]);
    const error = await rejection(faulty!.call("busy", { ms: 30_000 }, { timeoutMs: 200 }));
    assert.ok(error instanceof ToolCallError);
    assert.equal(error.kind, "ToolTimeout");
    await pollUntil(
      "the ignored abort in the log",
      () => logger.lines.some((l) => /call "busy" ignored its abort signal for 400 ms/.test(l)),
      { timeoutMs: 5_000 },
    );
    await pollUntil("faulty_tools to be ready", () => faulty!.state().state === "ready", {
      timeoutMs: 5_000,
    });
    assert.equal(await faulty!.call("echo", { value: "back" }, { timeoutMs: 5_000 }), "back");
    assert.deepEqual(await inventory!.call("count", undefined, { timeoutMs: 5_000 }), {
      total: 0,
      skus: [],
    });
  });
});

Deno.test("each Worker gets its module's permissions and its own settings", async () => {
  await withShared(
    ["faulty_tools.ts"],
    { permissions: {}, settings: { a: 1 } },
    async ([faulty]) => {
      await faulty!.start();
      assert.deepEqual(await faulty!.call("settings", undefined, { timeoutMs: 5_000 }), {
        settings: { a: 1 },
        dataDir: "/tmp/gateway-test-data",
      });
      const denied = await rejection(faulty!.call("env", { name: "HOME" }, { timeoutMs: 5_000 }));
      assert.ok(denied instanceof ToolCallError);
      assert.equal(denied.kind, "ToolError");
      assert.match(denied.message, /Requires env access to "HOME"/);
    },
  );
});

Deno.test("results JSON cannot carry and stray rejections are handled as in a process", async () => {
  await withShared(["faulty_tools.ts"], {}, async ([faulty]) => {
    await faulty!.start();
    const error = await rejection(faulty!.call("bigint", undefined, { timeoutMs: 5_000 }));
    assert.ok(error instanceof ToolCallError);
    assert.match(error.message, /cannot be sent as JSON/);
    assert.equal(await faulty!.call("stray", undefined, { timeoutMs: 5_000 }), "still here");
    assert.equal(await faulty!.call("echo", { value: 2 }, { timeoutMs: 5_000 }), 2);
  });
});

Deno.test("console output of a Worker is logged with its module's label", async () => {
  // realm_a.ts loads first into the same Worker: the output is still noisy_tools.ts's.
  await withShared(["realm_a.ts", "noisy_tools.ts"], {}, async ([a, noisy], logger) => {
    await a!.start();
    await noisy!.start();
    assert.equal(await noisy!.call("shout", { text: "hi" }, { timeoutMs: 5_000 }), "HI");
    await pollUntil("the shout in the log", () => logger.lines.some((l) => /shouting hi/.test(l)), {
      timeoutMs: 5_000,
    });
    assert.match(logger.lines.join("\n"), /info \[tools\/noisy_tools\.ts\] shouting hi/);
    assert.match(logger.lines.join("\n"), /info \[tools\/noisy_tools\.ts\] noisy module loading/);
  });
});

Deno.test("when the shared process dies, every module restarts under the policy", async () => {
  await withShared(["faulty_tools.ts", "inventory.ts"], {}, async ([faulty, inventory]) => {
    await Promise.all([faulty!.start(), inventory!.start()]);
    const pid = faulty!.pid!;
    const pending = rejection(faulty!.call("hang", undefined, { timeoutMs: 10_000 }));
    Deno.kill(pid, "SIGKILL");
    const error = await pending;
    assert.ok(error instanceof ToolCallError);
    assert.match(error.message, /the shared tool host was killed by SIGKILL during the call/);
    await pollUntil(
      "both modules to be ready again",
      () => faulty!.state().state === "ready" && inventory!.state().state === "ready",
      { timeoutMs: 10_000 },
    );
    assert.notEqual(faulty!.pid, pid);
    assert.equal(faulty!.pid, inventory!.pid);
    assert.equal(await faulty!.call("echo", { value: 3 }, { timeoutMs: 5_000 }), 3);
  });
});

Deno.test("runsIsolated() keeps a process of its own for isolate and for a list of net hosts", () => {
  assert.equal(runsIsolated({}), false);
  assert.equal(runsIsolated({ permissions: { net: true, read: ["."] } }), false);
  assert.equal(runsIsolated({ permissions: { read: ["."] } }), false);
  assert.equal(runsIsolated({ isolate: true }), true);
  assert.equal(runsIsolated({ permissions: { net: ["api.example.com"] } }), true);
});

Deno.test("an isolated module runs in a process of its own beside the shared host", async () => {
  await withShared(
    ["faulty_tools.ts", "inventory.ts"],
    {},
    async ([faulty, inventory], _, shared) => {
      const isolated = new ToolHost({
        shared,
        name: "isolated",
        file: fileURLToPath(new URL("faulty_tools.ts", FIXTURES)),
        dataDir: "/tmp/gateway-test-data",
        isolate: true,
        killGraceMs: 500,
      });
      try {
        await Promise.all([faulty!.start(), inventory!.start(), isolated.start()]);
        assert.equal(faulty!.pid, inventory!.pid);
        assert.notEqual(isolated.pid, faulty!.pid);
        assert.equal(await isolated.call("echo", { value: 4 }, { timeoutMs: 5_000 }), 4);
      } finally {
        await isolated.stop();
      }
    },
  );
});

/** The realm (Worker) id a realm fixture answers. */
async function realmOf(host: ToolHost): Promise<string> {
  const id = await host.call("realm", undefined, { timeoutMs: 5_000 });
  assert.equal(typeof id, "string");
  return id as string;
}

Deno.test("modules with full permissions and the same settings share one Worker; restricted modules never do", async () => {
  await withShared(["realm_a.ts", "realm_b.ts"], {}, async ([a, b], logger, shared) => {
    await Promise.all([a!.start(), b!.start()]);
    assert.equal(await realmOf(a!), await realmOf(b!));
    // Other settings (its environment) or other permissions: a Worker of its own.
    const other = (name: string, overrides: Partial<ToolHostOptions>) =>
      new ToolHost({
        name,
        file: fileURLToPath(new URL("realm_a.ts", FIXTURES)),
        dataDir: "/tmp/gateway-test-data",
        logger,
        shared,
        ...overrides,
      });
    const settled = other("settled", { settings: { mine: true } });
    const confined = other("confined", { permissions: {} });
    // The same restricted permissions and settings: still a realm of its own, so nothing one
    // runs reaches the other's globals or posts for it.
    const twin = other("twin", { permissions: {} });
    try {
      await Promise.all([settled.start(), confined.start(), twin.start()]);
      const realms = new Set([
        await realmOf(a!),
        await realmOf(settled),
        await realmOf(confined),
        await realmOf(twin),
      ]);
      assert.equal(realms.size, 4);
      assert.equal(settled.pid, a!.pid); // still one process
      assert.equal(twin.pid, confined.pid); // one process for both
    } finally {
      await Promise.all([settled.stop(), confined.stop(), twin.stop()]);
    }
  });
});

Deno.test("Deno.exit in a shared Worker: the others' calls fail as worker_restarted, then work in a new Worker", async () => {
  await withShared(["realm_a.ts", "realm_b.ts"], {}, async ([a, b]) => {
    await Promise.all([a!.start(), b!.start()]);
    const before = await realmOf(b!);
    const inFlight = rejection(b!.call("wait", { ms: 5_000 }, { timeoutMs: 10_000 }));
    const exited = await rejection(a!.call("exit", undefined, { timeoutMs: 5_000 }));
    assert.ok(exited instanceof ToolCallError);
    assert.match(exited.message, /tool host for "realm_a" exited with code 4 during the call/);
    const restarted = await inFlight;
    assert.ok(restarted instanceof ToolCallError);
    assert.equal(restarted.kind, "ToolError");
    assert.match(restarted.message, /worker_restarted: .*realm_a\.ts shared its Worker and exited/);
    const after = await realmOf(b!); // loaded again, without a restart of its namespace
    assert.notEqual(after, before);
    assert.equal(b!.state().state, "ready");
    await pollUntil("realm_a to be ready again", () => a!.state().state === "ready", {
      timeoutMs: 5_000,
    });
    assert.equal(await realmOf(a!), after); // back in the shared Worker
  });
});

Deno.test("stopping a module in a shared Worker leaves the others running, state and all", async () => {
  await withShared(["realm_a.ts", "realm_b.ts"], {}, async ([a, b]) => {
    await Promise.all([a!.start(), b!.start()]);
    const before = await realmOf(b!);
    const inFlight = b!.call("wait", { ms: 300 }, { timeoutMs: 10_000 });
    await a!.stop();
    assert.equal(await inFlight, "waited");
    assert.equal(await realmOf(b!), before);
  });
});

Deno.test("a module busy at import in a Worker with a ready module: the ready one moves and answers", async () => {
  await withShared(
    ["realm_a.ts", "busy_at_import.ts"],
    { loadTimeoutMs: 4_000, restartDelayMs: 60_000 },
    async ([a, busy]) => {
      await a!.start();
      const before = await realmOf(a!);
      const loading = rejection(busy!.start());
      // The busy import holds the shared Worker; realm_a is loaded again in a new one. A call
      // that reached the blocked Worker fails as worker_restarted, never silently.
      const after = await pollUntil("realm_a to answer from a new Worker", async () => {
        try {
          const now = await realmOf(a!);
          return now === before ? undefined : now;
        } catch (error) {
          assert.ok(error instanceof ToolCallError);
          assert.match(error.message, /worker_restarted: .*busy_at_import\.ts.* blocks it/);
          return undefined;
        }
      });
      const error = await loading;
      assert.ok(error instanceof ToolModuleLoadError);
      assert.match(error.message, /import did not finish within 4000 ms/);
      assert.equal(await realmOf(a!), after);
    },
  );
});
Deno.test("results that Workers write at once reach the gateway whole, never interleaved", async () => {
  await withShared(["faulty_tools.ts", "faulty_tools.ts"], {}, async ([first, second]) => {
    await Promise.all([first!.start(), second!.start()]);
    assert.equal(first!.pid, second!.pid);
    // Each result is larger than a pipe's buffer, so writes from two threads would split.
    const calls = Array.from({ length: 12 }, (_, i) => {
      const value = String.fromCharCode(97 + i).repeat(200_000);
      const host = i % 2 === 0 ? first! : second!;
      return host.call("echo", { value }, { timeoutMs: 20_000 }).then((answer) => ({
        answer,
        value,
      }));
    });
    for (const { answer, value } of await Promise.all(calls)) assert.equal(answer, value);
  });
});

Deno.test("a module stopped while writing a large result leaves the host answering the others", async () => {
  await withShared(["faulty_tools.ts", "inventory.ts"], {}, async ([faulty, inventory]) => {
    await Promise.all([faulty!.start(), inventory!.start()]);
    const large = faulty!.call("echo", { value: "x".repeat(20_000_000) }, { timeoutMs: 20_000 });
    large.catch(() => {}); // fails when stopped mid-way, or answers first: either is fine
    await faulty!.stop();
    for (let i = 0; i < 3; i++) {
      assert.deepEqual(await inventory!.call("count", undefined, { timeoutMs: 5_000 }), {
        total: 0,
        skus: [],
      });
    }
  });
});

Deno.test("a Worker's modules cannot reach the gateway's socket: its grant was revoked before their import", async () => {
  await withShared(["channel_probe.ts"], { permissions: {} }, async ([probe], _logger, shared) => {
    await probe!.start();
    const [path] = shared.socketPaths();
    assert.ok(path !== undefined);
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
    assert.deepEqual(await probe!.call("probe", { path }, { timeoutMs: 5_000 }), {
      read: "prompt",
      write: "prompt",
      net: "prompt",
      connect: "NotCapable",
    });
  });
});

Deno.test("a connection with a wrong module token is refused and logged; the module keeps serving 100 of 100 calls", async () => {
  await withShared(["faulty_tools.ts"], {}, async ([faulty], logger, shared) => {
    await faulty!.start();
    const [path] = shared.socketPaths();
    assert.ok(path !== undefined);
    const impostor = await Deno.connect({ transport: "unix", path });
    const forged = {
      method: "join",
      params: { worker: 1, token: "not-the-token", placement: 99 },
    };
    await impostor.write(new TextEncoder().encode(`${JSON.stringify(forged)}\n`));
    // The gateway closes the connection: the read ends without a byte.
    assert.equal(await impostor.read(new Uint8Array(16)), null);
    impostor.close();
    await pollUntil(
      "the refusal in the log",
      () =>
        logger.lines.some((l) => /refused a connection: an unknown or used module token/.test(l)),
      { timeoutMs: 5_000 },
    );
    for (let i = 0; i < 100; i++) {
      assert.equal(await faulty!.call("echo", { value: i }, { timeoutMs: 5_000 }), i);
    }
  });
});

Deno.test("a module writing a result to the shared stdout answers no other module's call", async () => {
  await withShared(["realm_a.ts", "channel_probe.ts"], {}, async ([waiter, forger]) => {
    await waiter!.start(); // module 1 in the host; its first call is call 1
    await forger!.start();
    const waiting = waiter!.call("wait", { ms: 300 }, { timeoutMs: 5_000 });
    assert.equal(
      await forger!.call("forge", { worker: 1, id: 1 }, { timeoutMs: 5_000 }),
      "written",
    );
    assert.equal(await waiting, "waited");
  });
});
