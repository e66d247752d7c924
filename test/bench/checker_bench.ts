/**
 * Benchmark of the warm script checker: median warm check (in-process and through the Web
 * Worker) against a cold `deno check` of a new temporary file. Prints numbers; asserts none.
 * Run: `deno run --allow-all test/bench/checker_bench.ts [--runs N]`.
 * @module
 */

import { parseArgs } from "node:util";
import { loadDenoLibTypes } from "../../src/exec/deno_lib_types.ts";
import { ScriptChecker } from "../../src/exec/script_checker.ts";
import { ScriptCheckerWorker } from "../../src/exec/script_checker_worker.ts";
import { prepareScript } from "../../src/exec/script_transform.ts";

const GLOBALS = [
  "declare const tools: {",
  "  kv: {",
  "    get(args: { key: string }): Promise<unknown>;",
  "    set(args: { key: string; value: unknown }): Promise<void>;",
  "  };",
  "};",
  "declare function stdin(): { text(): string; json(): unknown; lines(): string[] };",
  "declare const args: string[];",
].join("\n");

/** A small, realistic model-written snippet; `nonce` makes every check see new text. */
function sampleScript(nonce: number): string {
  return [
    `// run ${nonce}`,
    "const key = args[0] ?? 'greeting';",
    "const previous = await tools.kv.get({ key });",
    `await tools.kv.set({ key, value: { count: ${nonce}, previous } });`,
    "const lines = stdin().lines().map((line) => line.toUpperCase());",
    "console.log(JSON.stringify({ key, lines, at: new Date().toISOString() }));",
    "lines.length",
  ].join("\n");
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

async function time<T>(body: () => Promise<T> | T): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await body();
  return { ms: performance.now() - start, value };
}

async function coldDenoCheck(directory: string, nonce: number): Promise<number> {
  await Deno.writeTextFile(`${directory}/globals.d.ts`, GLOBALS);
  const file = `${directory}/script_${nonce}.ts`;
  await Deno.writeTextFile(
    file,
    `/// <reference path="./globals.d.ts" />\n${sampleScript(nonce + 1_000_000)}\nexport {};\n`,
  );
  const { ms, value } = await time(() =>
    new Deno.Command(Deno.execPath(), {
      args: ["check", "--no-config", "--quiet", file],
      cwd: directory,
      stdout: "null",
      stderr: "piped",
    }).output()
  );
  if (!value.success) {
    throw new Error(`Cannot bench "deno check": ${new TextDecoder().decode(value.stderr)}`);
  }
  return ms;
}

async function main(): Promise<void> {
  const flags = parseArgs({ options: { runs: { type: "string", default: "50" } } });
  const runs = Number(flags.values.runs);
  const cacheDir = await Deno.makeTempDir({ prefix: "gateway-checker-bench-" });
  try {
    const load = await time(() => import("typescript"));
    const denoTypes = await time(() => loadDenoLibTypes({ cacheDir }));
    const cachedTypes = await time(() => loadDenoLibTypes({ cacheDir }));
    const created = await time(() =>
      ScriptChecker.create({ denoTypes: denoTypes.value, globals: GLOBALS })
    );
    const checker = created.value;
    const first = await time(() => checker.check(sampleScript(0)));
    if (first.value.length > 0) {
      throw new Error(`Bench script has errors: ${JSON.stringify(first.value)}`);
    }
    const warm: number[] = [];
    for (let index = 1; index <= runs; index++) {
      warm.push((await time(() => checker.check(sampleScript(index)))).ms);
    }
    const preparedWarm: number[] = [];
    for (let index = 1; index <= runs; index++) {
      const prepared = await prepareScript(sampleScript(index), { inline: true });
      if (prepared.kind !== "Prepared") throw new Error(prepared.message);
      preparedWarm.push((await time(() => checker.check(prepared))).ms);
    }
    const prepareTimes: number[] = [];
    for (let index = 1; index <= runs; index++) {
      prepareTimes.push(
        (await time(() => prepareScript(sampleScript(index), { inline: true }))).ms,
      );
    }
    checker.dispose();

    const worker = ScriptCheckerWorker.start({ cacheDir, globals: GLOBALS });
    let workerWarm: number[] = [];
    let workerReadyMs = 0;
    try {
      workerReadyMs = (await time(() => worker.ready())).ms;
      workerWarm = [];
      for (let index = 1; index <= runs; index++) {
        workerWarm.push((await time(() => worker.check(sampleScript(index)))).ms);
      }
    } finally {
      await worker.close();
    }

    const coldRuns = Math.max(3, Math.min(7, Math.round(runs / 10)));
    const cold: number[] = [];
    for (let index = 0; index < coldRuns; index++) cold.push(await coldDenoCheck(cacheDir, index));

    const warmMedian = median(warm);
    const workerMedian = median(workerWarm);
    const coldMedian = median(cold);
    const rows: [string, string][] = [
      ["import npm:typescript", `${load.ms.toFixed(1)} ms`],
      ["deno types (cache miss)", `${denoTypes.ms.toFixed(1)} ms`],
      ["deno types (cache hit)", `${cachedTypes.ms.toFixed(1)} ms`],
      ["ScriptChecker.create", `${created.ms.toFixed(1)} ms`],
      ["first check (cold program)", `${first.ms.toFixed(1)} ms`],
      [`warm check, in-process (median of ${runs})`, `${warmMedian.toFixed(2)} ms`],
      [
        `warm check of prepared script (median of ${runs})`,
        `${median(preparedWarm).toFixed(2)} ms`,
      ],
      [`prepareScript (median of ${runs})`, `${median(prepareTimes).toFixed(2)} ms`],
      ["worker start to ready (incl. warm-up)", `${workerReadyMs.toFixed(1)} ms`],
      [`warm check via worker (median of ${runs})`, `${workerMedian.toFixed(2)} ms`],
      [`cold deno check of a new file (median of ${coldRuns})`, `${coldMedian.toFixed(1)} ms`],
      ["cold deno check / warm worker check", `${(coldMedian / workerMedian).toFixed(0)}x`],
    ];
    const width = Math.max(...rows.map(([label]) => label.length));
    for (const [label, value] of rows) console.log(`${label.padEnd(width)}  ${value}`);
  } finally {
    await Deno.remove(cacheDir, { recursive: true });
  }
}

if (import.meta.main) await main();
