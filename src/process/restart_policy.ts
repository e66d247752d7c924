/**
 * When to try a child again after it failed to start or crashed (MCP upstreams and tool hosts
 * alike): exponential back-off, and a breaker that holds a crash-looping child down for longer.
 * @module
 */

/** Tuning of {@linkcode RestartPolicy}; tests shorten every field. */
export interface RestartPolicyOptions {
  /** First delay after a failure. @default 500 */
  initialDelayMs: number;
  /** Ceiling of the doubling delay. @default 30000 */
  maxDelayMs: number;
  /** Crashes within `breakerWindowMs` that open the breaker. @default 5 */
  breakerCrashes: number;
  /** @default 60000 */
  breakerWindowMs: number;
  /** How long an open breaker holds the namespace failed. @default 300000 */
  breakerHoldMs: number;
}

/** The defaults of {@linkcode RestartPolicyOptions}. */
export const DEFAULT_RESTART_POLICY: Readonly<RestartPolicyOptions> = {
  initialDelayMs: 500,
  maxDelayMs: 30_000,
  breakerCrashes: 5,
  breakerWindowMs: 60_000,
  breakerHoldMs: 300_000,
};

/** The decision for one failure: wait this long, and whether the breaker opened. */
export interface RestartDecision {
  delayMs: number;
  breakerOpen: boolean;
}

/**
 * Decides the delay before the next connection attempt. Pure bookkeeping (time is passed in), so
 * the namespace owns the timers and tests need no clock.
 *
 * @example
 * ```ts
 * import { RestartPolicy } from "./restart_policy.ts";
 * import assert from "node:assert/strict";
 * const policy = new RestartPolicy();
 * assert.equal(policy.onFailure("start", 0).delayMs, 500);
 * assert.equal(policy.onFailure("start", 0).delayMs, 1000);
 * ```
 */
export class RestartPolicy {
  readonly #options: RestartPolicyOptions;
  #consecutive = 0;
  #crashes: number[] = [];

  constructor(options: Partial<RestartPolicyOptions> = {}) {
    this.#options = { ...DEFAULT_RESTART_POLICY, ...options };
  }

  /** The settings in force. */
  get options(): Readonly<RestartPolicyOptions> {
    return this.#options;
  }

  /**
   * Records a failure (`start`: connecting failed; `crash`: a ready connection was lost) and
   * returns how long to wait before trying again.
   */
  onFailure(kind: "start" | "crash", now: number): RestartDecision {
    if (kind === "crash") {
      this.#crashes = this.#crashes.filter((t) => now - t < this.#options.breakerWindowMs);
      this.#crashes.push(now);
      if (this.#crashes.length >= this.#options.breakerCrashes) {
        this.#crashes = [];
        this.#consecutive = 0;
        return { delayMs: this.#options.breakerHoldMs, breakerOpen: true };
      }
    }
    const delayMs = Math.min(
      this.#options.initialDelayMs * 2 ** this.#consecutive,
      this.#options.maxDelayMs,
    );
    this.#consecutive++;
    return { delayMs, breakerOpen: false };
  }

  /** Why the breaker opened, for failure reasons: `5 crashes within 60 s: held down`. */
  breakerReason(): string {
    const { breakerCrashes, breakerWindowMs } = this.#options;
    return `${breakerCrashes} crashes within ${Number((breakerWindowMs / 1000).toFixed(1))} s: ` +
      "held down";
  }

  /** Records a successful connection: the back-off starts over (crash history is kept). */
  onReady(): void {
    this.#consecutive = 0;
  }
}
