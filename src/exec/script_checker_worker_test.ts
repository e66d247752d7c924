import assert from "node:assert/strict";
import { ScriptCheckerWorker } from "./script_checker_worker.ts";
import { pollUntil } from "../../test/support/poll_until.ts";

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

Deno.test("ScriptCheckerWorker.check() restarts a worker that takes too long", async () => {
  await withWorker({ globals: SAMPLE_GLOBALS }, async (checker) => {
    await checker.ready();
    const big = Array.from(
      { length: 3000 },
      (_, index) => `const v${index} = await tools.kv.get({ key: "${index}" });`,
    ).join("\n");
    await assert.rejects(
      () => checker.check(big, { timeoutMs: 1 }),
      (error: unknown) =>
        error instanceof Error &&
        error.message === "Script check timed out: no answer from the checker worker within 1 ms",
    );
    // The next call starts a fresh worker that still knows the globals.
    const diagnostics = await checker.check("await tools.kv.get({ key: 2 });");
    assert.equal(diagnostics.length, 1);
    assert.equal(diagnostics[0]?.code, 2322);
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

Deno.test("ScriptCheckerWorker starts on first use and gives its worker back after idleMs", async () => {
  await withWorker({ globals: SAMPLE_GLOBALS, idleMs: 200 }, async (checker) => {
    assert.equal(checker.running, false, "nothing runs before the first call");
    assert.equal((await checker.check("await tools.kv.get({ key: 1 });")).length, 1);
    assert.equal(checker.running, true);
    await pollUntil(
      "the idle checker worker to be terminated",
      () => Promise.resolve(checker.running ? undefined : true),
    );
    // Globals set while no worker runs reach the next one, started by the next check.
    await checker.setGlobals(
      `declare const tools: { memory: { read(args: {}): Promise<string> } };`,
    );
    assert.equal(checker.running, false);
    assert.deepEqual(await checker.check("await tools.memory.read({});"), []);
    assert.equal(checker.running, true);
  });
});

Deno.test("ScriptCheckerWorker.preload() starts the worker cold and gives it back after its grace", async () => {
  await withWorker({ globals: SAMPLE_GLOBALS, idleMs: 60_000 }, async (checker) => {
    checker.preload(200);
    assert.equal(checker.running, true, "preload starts the worker at once");
    assert.equal(checker.warm, false, "preload loads the parser only: no warm-up");
    // Unused, it goes after the grace, not after idleMs (a minute here).
    await pollUntil(
      "the preloaded, unused worker to be given back",
      () => Promise.resolve(checker.running ? undefined : true),
    );
    // Used, it keeps the configured idleMs: still running well past the grace.
    checker.preload(200);
    const prepared = await checker.prepare("1", { inline: true });
    assert.equal(prepared.kind === "Prepared" && prepared.code, "globalThis.__gatewayResult((1))");
    await new Promise((resolve) => setTimeout(resolve, 600));
    assert.equal(checker.running, true, "a used worker stays for idleMs");
  });
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
