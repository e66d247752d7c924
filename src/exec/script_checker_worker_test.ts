import assert from "node:assert/strict";
import { ScriptCheckerWorker } from "./script_checker_worker.ts";
import { FakeClock } from "../../test/support/fake_clock.ts";
import { InMemoryTransport } from "../protocol/in_memory_transport.ts";
import { MessagePeer } from "../protocol/message_peer.ts";
import type { CheckerRequest } from "./script_checker_worker.ts";

const SAMPLE_GLOBALS = [
  "declare const tools: { kv: { get(args: { key: string }): Promise<unknown> } };",
  "declare function stdin(): { text(): string };",
  "declare const args: string[];",
].join("\n");

/** Runs `body` with a started worker and a fresh cache dir, closing and removing both after. */
async function withWorker(
  options: { globals?: string; denoPath?: string; idleMs?: number },
  body: (checker: ScriptCheckerWorker, cacheDir: string) => Promise<void>,
) {
  const cacheDir = await Deno.makeTempDir({ prefix: "gateway-checker-worker-test-" });
  const checker = ScriptCheckerWorker.start({ cacheDir, ...options });
  try {
    await body(checker, cacheDir);
  } finally {
    await checker.close();
    await Deno.remove(cacheDir, { recursive: true });
  }
}

Deno.test("ScriptCheckerWorker warms up without blocking the caller's event loop", async () => {
  await withWorker({ globals: SAMPLE_GLOBALS }, async (checker) => {
    let ticks = 0;
    const interval = setInterval(() => ticks++, 5);
    try {
      await checker.ready();
    } finally {
      clearInterval(interval);
    }
    assert.ok(ticks > 0, "timers kept firing while the worker warmed up");
  });
});

Deno.test("ScriptCheckerWorker.check() answers diagnostics and follows setGlobals()", async () => {
  await withWorker({ globals: SAMPLE_GLOBALS }, async (checker) => {
    const diagnostics = await checker.check("\n\nawait tools.kv.get({ key: 1 });");
    assert.equal(diagnostics.length, 1);
    assert.deepEqual([diagnostics[0]?.line, diagnostics[0]?.column], [3, 22]);
    assert.deepEqual(await checker.check("await tools.kv.get({ key: args[0] ?? '' });"), []);

    const script = "await tools.memory.read({});";
    assert.equal((await checker.check(script)).length, 1);
    await checker.setGlobals(
      `declare const tools: { memory: { read(args: {}): Promise<string> } };`,
    );
    assert.deepEqual(await checker.check(script), []);
    assert.deepEqual(await checker.globalsDiagnostics(), []);
  });
});

Deno.test("ScriptCheckerWorker.prepare() rewrites a snippet that check() then accepts", async () => {
  await withWorker({ globals: SAMPLE_GLOBALS }, async (checker) => {
    const prepared = await checker.prepare("const key = 'a';\nawait tools.kv.get({ key })", {
      inline: true,
    });
    assert.equal(prepared.kind, "Prepared");
    if (prepared.kind !== "Prepared") return;
    assert.equal(
      prepared.code,
      "const key = 'a';\nglobalThis.__gatewayResult((await tools.kv.get({ key })))",
    );
    assert.deepEqual(await checker.check(prepared), []);

    const broken = await checker.prepare("const = 1", { inline: true });
    assert.deepEqual(broken, {
      kind: "SyntaxError",
      message: "Variable declaration expected.",
      line: 1,
      column: 7,
    });
  });
});

Deno.test("ScriptCheckerWorker.ready() rejects with the reason when the warm-up fails, prepare() still works", async () => {
  await withWorker({ denoPath: "/nonexistent/deno-binary" }, async (checker, cacheDir) => {
    // A cache written for another version does not count: this version must be generated.
    assert.deepEqual([...Deno.readDirSync(cacheDir)], []);
    await assert.rejects(
      () => checker.ready(),
      (error: unknown) =>
        error instanceof Error &&
        error.message.startsWith(
          'Cannot obtain Deno type declarations: running "/nonexistent/deno-binary types" failed',
        ),
    );
    await assert.rejects(() => checker.check("1"), /Cannot obtain Deno type declarations/);
    await checker.setGlobals(SAMPLE_GLOBALS);
    const prepared = await checker.prepare("1 + 1", { inline: true });
    assert.equal(
      prepared.kind === "Prepared" && prepared.code,
      "globalThis.__gatewayResult((1 + 1))",
    );
  });
});

Deno.test("ScriptCheckerWorker.close() makes later calls reject", async () => {
  await withWorker({}, async (checker) => {
    await checker.close();
    await assert.rejects(() => checker.check("1"), /Script checker worker is closed/);
    await assert.rejects(() => checker.ready(), /Script checker worker is closed/);
  });
});

Deno.test("ScriptCheckerWorker.check() types node: built-ins as deno check does", async () => {
  await withWorker({ globals: SAMPLE_GLOBALS }, async (checker) => {
    const wrong = await checker.check(
      'import { readFileSync } from "node:fs";\nconst n: number = readFileSync(args[0]!, "utf8");',
    );
    assert.deepEqual(wrong.map((d) => [d.line, d.column, d.code]), [[2, 7, 2322]]);
    const right = await checker.check('import { join } from "node:path";\njoin(...args);');
    assert.deepEqual(right, []);
  });
});

/**
 * Checker workers in memory, standing in for `script_checker_worker_entry.ts` in its process:
 * each answers `init` at once, `check` with one diagnostic per `tools.memory` use it does not
 * know (its globals' tools), and holds a check of `"hang"` until the test ends it. The test
 * sees every request each worker got.
 */
function memoryCheckers() {
  const workers: { requests: CheckerRequest[]; closed: PromiseWithResolvers<void> }[] = [];
  const startWorker = () => {
    const [client, worker] = InMemoryTransport.pair();
    const peer = new MessagePeer(worker);
    const seen = { requests: [] as CheckerRequest[], closed: Promise.withResolvers<void>() };
    workers.push(seen);
    let globals = "";
    peer.onClose(() => seen.closed.resolve());
    peer.serve("message", (params, request) => {
      const message = { ...(params as object), id: request.id as number } as CheckerRequest;
      seen.requests.push(message);
      if (message.op === "init") globals = message.globals;
      if (message.op === "check" && message.script === "hang") return;
      const value = message.op === "check"
        ? (globals.includes("memory") ? [] : [{ code: 2339, message: "no memory", line: 1 }])
        : null;
      request.reply({ id: request.id, ok: true, value });
    });
    return { transport: client, pid: null, closed: seen.closed.promise };
  };
  return { workers, startWorker };
}

Deno.test("ScriptCheckerWorker.check() restarts a worker that takes longer than its timeout", async () => {
  const clock = new FakeClock();
  const { workers, startWorker } = memoryCheckers();
  const checker = ScriptCheckerWorker.start({
    cacheDir: "/unused",
    globals: SAMPLE_GLOBALS,
    checkTimeoutMs: 5_000,
    startWorker,
    clock,
  });
  await checker.ready();
  const hung = checker.check("hang", { timeoutMs: 100 });
  await clock.advance(99);
  assert.equal(checker.running, true);
  await clock.advance(1);
  await assert.rejects(
    hung,
    (error: unknown) =>
      error instanceof Error &&
      error.message === "Script check timed out: no answer from the checker worker within 100 ms",
  );
  await workers[0]!.closed.promise;
  assert.equal(checker.running, false);
  // The next call starts a fresh worker that still knows the globals.
  assert.equal((await checker.check("1")).length, 1);
  assert.equal(workers.length, 2);
  assert.deepEqual(workers[1]!.requests.map((r) => r.op), ["init", "check"]);
  assert.equal((workers[1]!.requests[0] as { globals: string }).globals, SAMPLE_GLOBALS);
  await checker.close();
});

Deno.test("ScriptCheckerWorker starts on first use and gives its worker back after idleMs", async () => {
  const clock = new FakeClock();
  const { workers, startWorker } = memoryCheckers();
  const checker = ScriptCheckerWorker.start({
    cacheDir: "/unused",
    globals: SAMPLE_GLOBALS,
    idleMs: 200,
    startWorker,
    clock,
  });
  assert.equal(checker.running, false, "nothing runs before the first call");
  assert.equal((await checker.check("await tools.kv.get({ key: 1 });")).length, 1);
  assert.equal(checker.running, true);
  await clock.advance(199);
  assert.equal(checker.running, true);
  await clock.advance(1);
  assert.equal(checker.running, false, "idle for idleMs: given back");
  await workers[0]!.closed.promise;
  // Globals set while no worker runs reach the next one, started by the next check.
  await checker.setGlobals(`declare const tools: { memory: { read(args: {}): Promise<string> } };`);
  assert.equal(checker.running, false);
  assert.deepEqual(await checker.check("await tools.memory.read({});"), []);
  assert.equal(checker.running, true);
  assert.equal(workers.length, 2);
  await checker.close();
});

Deno.test("ScriptCheckerWorker.preload() starts the worker cold and gives it back after its grace", async () => {
  const clock = new FakeClock();
  const { workers, startWorker } = memoryCheckers();
  const checker = ScriptCheckerWorker.start({
    cacheDir: "/unused",
    globals: SAMPLE_GLOBALS,
    idleMs: 60_000,
    startWorker,
    clock,
  });
  checker.preload(200);
  assert.equal(checker.running, true, "preload starts the worker at once");
  assert.equal(checker.warm, false, "preload loads the parser only: no warm-up");
  // Unused, it goes after the grace, not after idleMs (a minute here).
  await clock.advance(199);
  assert.equal(checker.running, true);
  await clock.advance(1);
  assert.equal(checker.running, false, "the preloaded, unused worker is given back");
  await workers[0]!.closed.promise;
  assert.ok(workers[0]!.requests.some((r) => r.op === "declarations"), "declarations loaded");
  assert.ok(!workers[0]!.requests.some((r) => r.op === "check"), "no warm-up check");
  // Used, it keeps the configured idleMs: still running well past the grace.
  checker.preload(200);
  await checker.prepare("1", { inline: true });
  await clock.advance(59_999);
  assert.equal(checker.running, true, "a used worker stays for idleMs");
  await clock.advance(1);
  assert.equal(checker.running, false);
  await checker.close();
});

Deno.test("ScriptCheckerWorker answers a prepare sent during the warm-up before the warm-up ends", async () => {
  await withWorker({ globals: SAMPLE_GLOBALS }, async (checker) => {
    assert.equal(checker.warm, false);
    const order: string[] = [];
    const warming = checker.ready().then(() => order.push("warm"));
    const prepared = checker.prepare("1 + 1", { inline: true }).then(() => order.push("prepared"));
    await checker.warming();
    await Promise.all([warming, prepared]);
    assert.deepEqual(order, ["prepared", "warm"]);
    assert.equal(checker.warm, true);
    await checker.warming(); // nothing in flight: at once
  });
});
