/**
 * `ToolHost`'s rules — deadlines, aborts and their grace, crashes, restarts under the policy,
 * calls while starting — over modules in memory (a `MessagePeer` on an in-memory pair, served as
 * a host process serves them) and a fake clock: no process, no wall-clock wait.
 */

import assert from "node:assert/strict";
import { AsyncLocalStorage } from "node:async_hooks";
import { FakeClock } from "../../../test/support/fake_clock.ts";
import { captureLogger } from "../../../test/support/capture_logger.ts";
import { InMemoryTransport } from "../../protocol/in_memory_transport.ts";
import { MessagePeer } from "../../protocol/message_peer.ts";
import { ToolCallError } from "../namespace.ts";
import { type CallTicket, ModuleCalls, type PendingCall } from "./module_calls.ts";
import { ToolHost, type ToolHostOptions } from "./tool_host.ts";
import type { ToolHostConnection } from "./tool_host_connection.ts";
import { type CallScope, MODULE_PEER_OPTIONS, serveCalls } from "./tool_host_main.ts";

const scope = new AsyncLocalStorage<CallScope>();
/** The signal of the call in progress, as `globalThis.gatewaySignal` gives it to a module. */
const signal = () => scope.getStore()?.signal;

/** The tools the modules in memory export. */
const TOOLS: Record<string, (args?: unknown) => unknown> = {
  echo: (args) => (args as { value: unknown }).value,
  fail: () => {
    throw new RangeError("out of range");
  },
  /** Rejects once its call is aborted (a tool that honours the signal). */
  waitForAbort: () =>
    new Promise((_, reject) => signal()?.addEventListener("abort", () => reject(signal()?.reason))),
  /** Never answers and ignores its signal. */
  hang: () => new Promise(() => {}),
};

/** One module in memory: `ToolHost`'s connection to it, and the test's handles on it. */
class MemoryModule implements ToolHostConnection {
  readonly pid: number;
  readonly isolated = true;
  readonly ready: Promise<string[]>;
  readonly closed: Promise<void>;
  endReason = "is running";
  readonly #calls = new ModuleCalls({ name: "mem" });
  readonly #closed = Promise.withResolvers<void>();
  readonly #ready = Promise.withResolvers<string[]>();
  readonly #module: MessagePeer;

  constructor(pid: number) {
    this.pid = pid;
    this.ready = this.#ready.promise;
    this.ready.catch(() => {});
    this.closed = this.#closed.promise;
    const [gateway, module] = InMemoryTransport.pair();
    this.#module = new MessagePeer(module, MODULE_PEER_OPTIONS);
    serveCalls(this.#module, { loaded: Promise.resolve(TOOLS), calls: scope });
    this.#calls.join(gateway, 1);
  }

  /** The import finished. */
  loaded(): void {
    this.#ready.resolve(Object.keys(TOOLS));
  }

  /** The runtime died: the calls sent to it fail with how it ended. */
  crash(how: string): void {
    this.endReason = how;
    this.#module.close(how);
    this.#calls.end(new ToolCallError("ToolError", `tool host for "mem" ${how} during the call`));
    this.#ready.reject(new Error(`the tool host ${how} during import`));
    this.#closed.resolve();
  }

  memoryPid(): number | null {
    return null;
  }

  call(tool: string, args: unknown, answer: PendingCall): CallTicket {
    return this.#calls.call(tool, args, answer);
  }

  retire(message: string): void {
    this.#calls.retire(message);
  }

  drained(maxMs: number): Promise<void> {
    return this.#calls.drained(maxMs, () => this.endReason !== "is running");
  }

  stop(_graceMs: number, message: string): Promise<void> {
    this.retire(message);
    if (this.endReason === "is running") this.crash("was stopped");
    return this.closed;
  }
}

/** What `call` rejects with: always a `ToolCallError`. */
function failed(call: Promise<unknown>): Promise<ToolCallError> {
  return call.then(
    (value) => {
      throw new Error(`the call answered ${JSON.stringify(value)} instead of failing`);
    },
    (error: unknown) => {
      assert.ok(error instanceof ToolCallError, String(error));
      return error;
    },
  );
}

/** A host over modules in memory, each loaded at once unless the test holds them. */
function memoryHost(overrides: Partial<ToolHostOptions> & { holdLoads?: boolean } = {}) {
  const clock = new FakeClock();
  const modules: MemoryModule[] = [];
  const { holdLoads, ...options } = overrides;
  const logger = captureLogger();
  const host = new ToolHost({
    name: "mem",
    file: "/root/tools/mem.ts",
    dataDir: "/data",
    abortGraceMs: 400,
    restartDelayMs: 100,
    logger,
    clock,
    connect: () => {
      const module = new MemoryModule(1000 + modules.length);
      modules.push(module);
      if (holdLoads !== true) module.loaded();
      return module;
    },
    ...options,
  });
  return { host, clock, modules, logger };
}

Deno.test("ToolHost.call() answers with the tool's value, and a throw as ToolError with the tool's own stack", async () => {
  const { host } = memoryHost();
  await host.start();
  assert.deepEqual(await host.call("echo", { value: [1, { a: "b" }] }, { timeoutMs: 1_000 }), [
    1,
    { a: "b" },
  ]);
  const error = await failed(host.call("fail", undefined, { timeoutMs: 1_000 }));
  assert.equal(error.kind, "ToolError");
  assert.equal(error.message, "out of range");
  assert.equal((error.cause as Error).name, "RangeError");
  assert.match((error.cause as Error).stack ?? "", /tool_host_calls_test\.ts/);
  await host.stop();
});

Deno.test("ToolHost.call() ends at its deadline with ToolTimeout; a tool that honours the abort keeps its host", async () => {
  const { host, clock, modules } = memoryHost();
  await host.start();
  const waiting = failed(host.call("waitForAbort", undefined, { timeoutMs: 200 }));
  await clock.advance(199);
  assert.equal(host.state().state, "ready");
  await clock.advance(1);
  const error = await waiting;
  assert.ok(error instanceof ToolCallError);
  assert.equal(error.kind, "ToolTimeout");
  assert.equal(error.message, `tool "mem.waitForAbort" did not answer within 200 ms`);
  await clock.advance(1_000); // past the abort grace: the tool answered its abort in time
  assert.equal(modules.length, 1, "no restart");
  assert.equal(await host.call("echo", { value: "still" }, { timeoutMs: 1_000 }), "still");
  await host.stop();
});

Deno.test("ToolHost restarts a module whose call ignores its abort past the grace, failing its other calls", async () => {
  const { host, clock, modules, logger } = memoryHost();
  await host.start();
  const bystander = failed(host.call("hang", undefined, { timeoutMs: 60_000 }));
  const ignored = failed(host.call("hang", undefined, { timeoutMs: 200 }));
  await clock.advance(200);
  assert.equal((await ignored).kind, "ToolTimeout");
  await clock.advance(399);
  assert.equal(modules.length, 1, "the grace is not over");
  await clock.advance(1);
  const victim = await bystander;
  assert.ok(victim instanceof ToolCallError);
  assert.equal(victim.kind, "NamespaceUnavailable");
  assert.equal(
    victim.message,
    `tool host for "mem" restarted: call "hang" ignored its abort signal for 400 ms`,
  );
  assert.equal(modules.length, 2);
  assert.equal(host.state().state, "ready");
  assert.ok(logger.lines.some((l) => /ignored its abort signal for 400 ms/.test(l)));
  assert.equal(await host.call("echo", { value: 2 }, { timeoutMs: 1_000 }), 2);
  await host.stop();
});

Deno.test("ToolHost.call() is Cancelled when its signal aborts, and at once when it was aborted", async () => {
  const { host } = memoryHost();
  await host.start();
  const controller = new AbortController();
  const waiting = failed(host.call("waitForAbort", undefined, {
    timeoutMs: 60_000,
    signal: controller.signal,
  }));
  controller.abort();
  const error = await waiting;
  assert.equal(error.kind, "Cancelled");
  assert.equal(error.message, `call to "mem.waitForAbort" was cancelled`);
  const early = await failed(host.call("echo", { value: 1 }, {
    timeoutMs: 1_000,
    signal: controller.signal,
  }));
  assert.equal(early.kind, "Cancelled");
  await host.stop();
});

Deno.test("ToolHost: a crash fails the call in flight, and the module restarts after the back-off", async () => {
  const { host, clock, modules } = memoryHost({ restartDelayMs: 500 });
  const states: string[] = [];
  await host.start();
  const inFlight = failed(host.call("hang", undefined, { timeoutMs: 60_000 }));
  modules[0]!.crash("exited with code 3");
  const error = await inFlight;
  assert.equal(error.kind, "ToolError");
  assert.equal(error.message, `tool host for "mem" exited with code 3 during the call`);
  await clock.advance(0);
  const state = host.state();
  assert.equal(state.state, "waiting");
  if (state.state === "waiting") {
    assert.equal(state.reason, `tool host for "mem" exited with code 3`);
    assert.equal(state.retryAt, clock.now() + 500);
  }
  const meanwhile = await failed(host.call("echo", { value: 1 }, { timeoutMs: 1_000 }));
  assert.equal(meanwhile.kind, "NamespaceUnavailable");
  assert.match(meanwhile.message, /exited with code 3 \(retrying in 0\.5 s\)/);
  await clock.advance(499);
  assert.equal(modules.length, 1);
  await clock.advance(1);
  states.push(host.state().state);
  assert.equal(modules.length, 2);
  assert.deepEqual(states, ["ready"]);
  assert.equal(await host.call("echo", { value: "back" }, { timeoutMs: 1_000 }), "back");
  await host.stop();
});

Deno.test("ToolHost: crashes in a row open the breaker, which holds the module down", async () => {
  const { host, clock, modules } = memoryHost({
    restart: { breakerCrashes: 3, breakerWindowMs: 60_000, breakerHoldMs: 300_000 },
  });
  await host.start();
  for (let crash = 1; crash <= 3; crash++) {
    modules.at(-1)!.crash(`exited with code ${crash}`);
    await clock.advance(crash < 3 ? 100 * 2 ** (crash - 1) : 0);
  }
  const state = host.state();
  assert.equal(state.state, "waiting");
  if (state.state === "waiting") {
    assert.match(state.reason, /3 crashes within 60 s: held down/);
    assert.equal(state.retryAt, clock.now() + 300_000);
  }
  await clock.advance(299_999);
  assert.equal(modules.length, 3);
  await clock.advance(1);
  assert.equal(modules.length, 4);
  await host.stop();
});

Deno.test("ToolHost.call() while the module starts waits for it, at most its own deadline", async () => {
  const { host, clock, modules } = memoryHost({ holdLoads: true });
  const starting = host.start();
  const early = host.call("echo", { value: "early" }, { timeoutMs: 5_000 });
  const impatient = failed(host.call("echo", { value: "late" }, { timeoutMs: 100 }));
  await clock.advance(100);
  const gaveUp = await impatient;
  assert.equal(gaveUp.kind, "NamespaceUnavailable");
  assert.equal(gaveUp.message, `tool host for "mem" is still starting`);
  modules[0]!.loaded();
  await starting;
  assert.equal(await early, "early");
  await host.stop();
});
