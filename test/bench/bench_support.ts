/**
 * What the bench files share: medians, timing a function, `--quick`, and rows that print the
 * target beside each measure and whether it is met (stated, never asserted).
 * @module
 */

import { procStatFields } from "../../src/process/proc_stat.ts";

/** `--quick` (or `BENCH_QUICK=1`): fewer repetitions and runs, for a bench under a minute or two. */
export const QUICK = Deno.args.includes("--quick") || Deno.env.get("BENCH_QUICK") === "1";

/** Repetitions of a timed step (`BENCH_RUNS` overrides). */
export const RUNS = Number(Deno.env.get("BENCH_RUNS") ?? (QUICK ? 5 : 10));

/**
 * CPU time (user + system, every thread) process `pid` has used, in ms, from `/proc/PID/stat`
 * (Linux; clock ticks of 10 ms, as Linux counts them on x86-64 and arm64). NaN when the
 * process is gone or there is no `/proc`.
 */
export function cpuMs(pid: number | "self" = "self"): number {
  const fields = procStatFields(pid);
  return fields === null ? NaN : (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The middle value (upper middle for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

/** Median wall time of `fn` over `runs` after one warm-up, with an optional pause before each. */
export async function timeMs(
  fn: () => Promise<unknown>,
  runs = RUNS,
  options: { pauseMs?: number } = {},
): Promise<number> {
  await fn(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    if (options.pauseMs) await new Promise((r) => setTimeout(r, options.pauseMs));
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  return median(times);
}

/** A candidate measured against its baseline in alternation (see {@linkcode measurePaired}). */
export interface Paired {
  /** Median of the baseline's measures (ms for {@linkcode timePaired}). */
  baseline: number;
  /** Median of the candidate's measures. */
  candidate: number;
  /** Median of the pairs' candidate / baseline ratios. */
  ratio: number;
  /** Median of the pairs' candidate − baseline differences. */
  difference: number;
}

/**
 * Measures `candidate` against `baseline` in alternation: one warm-up each, then `runs` pairs,
 * with an optional pause before each pair; each function answers its own measure. A ratio of two
 * medians taken minutes apart on a shared 2-core machine moved with the load between them (1.6×
 * to 1.9× for one build); each pair here sees the same load, so the medians of the pairs' ratios
 * and differences are what the candidate costs over its baseline. `alternate` swaps which goes
 * first in every other pair, so neither always runs on the machine the other left.
 */
export async function measurePaired(
  baseline: () => Promise<number>,
  candidate: () => Promise<number>,
  runs = RUNS,
  options: { pauseMs?: number; alternate?: boolean } = {},
): Promise<Paired> {
  await baseline();
  await candidate();
  const base: number[] = [];
  const cand: number[] = [];
  const ratios: number[] = [];
  const differences: number[] = [];
  for (let i = 0; i < runs; i++) {
    if (options.pauseMs) await new Promise((r) => setTimeout(r, options.pauseMs));
    let b: number;
    let c: number;
    if (options.alternate && i % 2 === 1) {
      c = await candidate();
      b = await baseline();
    } else {
      b = await baseline();
      c = await candidate();
    }
    base.push(b);
    cand.push(c);
    ratios.push(c / b);
    differences.push(c - b);
  }
  return {
    baseline: median(base),
    candidate: median(cand),
    ratio: median(ratios),
    difference: median(differences),
  };
}

/** {@linkcode measurePaired} of the two functions' wall times, in ms. */
export function timePaired(
  baseline: () => Promise<unknown>,
  candidate: () => Promise<unknown>,
  runs = RUNS,
  options: { pauseMs?: number } = {},
): Promise<Paired> {
  const timed = (fn: () => Promise<unknown>) => async () => {
    const start = performance.now();
    await fn();
    return performance.now() - start;
  };
  return measurePaired(timed(baseline), timed(candidate), runs, options);
}

/** Prints a timing row: label, milliseconds, a note. */
export function row(label: string, ms: number, note = ""): void {
  console.log(`${label.padEnd(58)} ${ms.toFixed(2).padStart(9)} ms${note ? `  ${note}` : ""}`);
}

/** A note stating the target and whether `met` holds: `target ≤ 0.2 ms: met`. */
export function target(text: string, met: boolean): string {
  return `(target ${text}: ${met ? "met" : "NOT met"})`;
}

/**
 * A ratio as the rows print it: two decimals, or three where two would round onto the target
 * (0.796 printed as "0.80×" beside "NOT met" against ≥ 0.8× reads as a contradiction).
 */
export function ratioText(ratio: number, targetRatio?: number): string {
  const two = ratio.toFixed(2);
  return targetRatio !== undefined && Number(two) === targetRatio && ratio !== targetRatio
    ? ratio.toFixed(3)
    : two;
}

/** Prints a row of any unit: label, value, unit, a note. */
export function valueRow(label: string, value: string, note = ""): void {
  console.log(`${label.padEnd(58)} ${value.padStart(12)}${note ? `  ${note}` : ""}`);
}
