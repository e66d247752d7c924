/**
 * How an upstream's progress notifications reach the caller of one call: a token bucket that
 * lets a short burst through at once and a flood through at a steady rate, so a server that
 * reports progress a thousand times a second cannot flood the caller, while the few updates a
 * quick call sends all arrive. An update that finds the bucket empty is not lost: the latest
 * one waiting goes out as soon as a token is back (older waiting ones are superseded by it),
 * and a final update (progress reached total) always goes out at once.
 * @module
 */

/** One progress update, as the upstream reported it. */
export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/** Tuning of a {@linkcode ProgressThrottle}. */
export interface ProgressThrottleOptions {
  /** Updates let through at once after a quiet spell. @default 5 */
  burst?: number;
  /** Updates let through per second in a flood. @default 10 */
  perSecond?: number;
  /** The clock (ms). @default performance.now */
  now?: () => number;
}

/**
 * The progress gate of one call: `offer` each update the upstream sends; `deliver` is told the
 * ones that pass, in order, their `progress` never going back. `end` when the call settles:
 * an update still waiting is dropped (the answer supersedes it).
 *
 * @example
 * ```ts
 * import { ProgressThrottle } from "./progress_throttle.ts";
 * import assert from "node:assert/strict";
 * const seen: number[] = [];
 * const gate = new ProgressThrottle((u) => seen.push(u.progress), { burst: 3, now: () => 0 });
 * for (let i = 1; i <= 10; i++) gate.offer({ progress: i });
 * assert.deepEqual(seen, [1, 2, 3]);
 * gate.end();
 * ```
 */
export class ProgressThrottle {
  readonly #deliver: (update: ProgressUpdate) => void;
  readonly #burst: number;
  readonly #intervalMs: number;
  readonly #now: () => number;
  #tokens: number;
  #refilledAt: number;
  #waiting: ProgressUpdate | null = null;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #ended = false;

  constructor(deliver: (update: ProgressUpdate) => void, options: ProgressThrottleOptions = {}) {
    this.#deliver = deliver;
    this.#burst = options.burst ?? 5;
    this.#intervalMs = 1000 / (options.perSecond ?? 10);
    this.#now = options.now ?? (() => performance.now());
    this.#tokens = this.#burst;
    this.#refilledAt = this.#now();
  }

  /** An update from the upstream: delivered now, held as the latest waiting, or superseded. */
  offer(update: ProgressUpdate): void {
    if (this.#ended) return;
    const final = update.total !== undefined && update.progress >= update.total;
    this.#refill();
    if (final || this.#tokens >= 1) {
      if (!final) this.#tokens -= 1;
      this.#waiting = null;
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#deliver(update);
      return;
    }
    this.#waiting = update;
    if (this.#timer === undefined) {
      const wait = Math.max(0, this.#intervalMs * (1 - this.#tokens));
      this.#timer = setTimeout(() => this.#flush(), wait);
      // A waiting update never keeps the process alive: the call it belongs to does.
      Deno.unrefTimer(this.#timer);
    }
  }

  /** The call settled: nothing more is delivered. */
  end(): void {
    this.#ended = true;
    this.#waiting = null;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #refill(): void {
    const now = this.#now();
    const earned = (now - this.#refilledAt) / this.#intervalMs;
    if (earned <= 0) return;
    this.#tokens = Math.min(this.#burst, this.#tokens + earned);
    this.#refilledAt = now;
  }

  #flush(): void {
    this.#timer = undefined;
    const waiting = this.#waiting;
    if (waiting === null || this.#ended) return;
    this.#waiting = null;
    this.offer(waiting);
  }
}
