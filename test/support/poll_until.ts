/**
 * The one polling helper of the tests: wait for a state the code under test reaches on its own
 * (a reload, a failed namespace, a process gone) without fixed sleeps, and fail naming what was
 * awaited when it never comes.
 * @module
 */

/** What a probe answers while the awaited state is not there yet. */
export type NotYet = undefined | null | false;

/** Options of {@linkcode pollUntil}. */
export interface PollOptions {
  /** Give up (and throw) after this long. @default {20_000} */
  timeoutMs?: number;
  /** Wait between probes; by default 10 ms, doubling up to 100 ms (quick for in-process
   * states, cheap for slow ones). */
  intervalMs?: number;
  /** Describes the last state seen, for the message when the poll gives up. */
  last?: () => unknown;
}

/**
 * Calls `probe` (every `intervalMs`, or 10 ms doubling up to 100 ms) until it returns something
 * other than `undefined`, `null` or `false`, and returns that value. A probe that throws counts
 * as "not yet" (its error is kept for the message). When `timeoutMs` passes, throws naming
 * `what`, the last value seen and the last error, so the test fails saying what it waited for.
 *
 * @example
 * ```ts
 * import { pollUntil } from "./poll_until.ts";
 * import assert from "node:assert/strict";
 *
 * let ticks = 0;
 * const timer = setInterval(() => ticks++, 5);
 * try {
 *   assert.equal(await pollUntil("three ticks", () => ticks >= 3), true);
 *   await assert.rejects(
 *     pollUntil("a tick count of -1", () => ticks === -1, { timeoutMs: 30, intervalMs: 5 }),
 *     /Timed out after 30 ms waiting for a tick count of -1/,
 *   );
 * } finally {
 *   clearInterval(timer);
 * }
 * ```
 */
export async function pollUntil<T>(
  what: string,
  probe: () => T | NotYet | Promise<T | NotYet>,
  options: PollOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 20_000;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown = null;
  let wait = options.intervalMs ?? 10;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== null && value !== false) return value as T;
      lastError = null;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, wait));
    if (options.intervalMs === undefined) wait = Math.min(wait * 2, 100);
  }
  const seen = options.last ? `; last seen: ${JSON.stringify(options.last())}` : "";
  throw new Error(
    `Timed out after ${timeoutMs} ms waiting for ${what}${seen}${
      lastError ? `; last error: ${String(lastError)}` : ""
    }`,
  );
}
