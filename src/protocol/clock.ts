/**
 * Time as the code that keeps deadlines sees it: now, and timers. Code that waits takes a
 * `Clock` (the system's by default), so its tests move time by hand (`test/support/fake_clock.ts`)
 * instead of waiting for it, and assert no wall-clock window.
 * @module
 */

/** A timer's handle, as `setTimeout` gives it. */
export type TimerId = ReturnType<typeof setTimeout>;

/** Now, and timers; see the module doc. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `callback` once, `ms` from now. */
  setTimeout(callback: () => void, ms: number): TimerId;
  clearTimeout(id: TimerId | undefined): void;
  /** Lets a pending timer not keep the process alive. */
  unref(id: TimerId): void;
  /** Lets it keep the process alive again. */
  ref(id: TimerId): void;
}

/**
 * The system's clock: `Date.now()` and the runtime's timers.
 *
 * @example
 * ```ts
 * import { systemClock } from "./clock.ts";
 * const timer = systemClock.setTimeout(() => {}, 1_000);
 * systemClock.clearTimeout(timer);
 * ```
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (id) => clearTimeout(id),
  unref: (id) => Deno.unrefTimer(id as unknown as number),
  ref: (id) => Deno.refTimer(id as unknown as number),
};
