/**
 * A `Clock` the test moves by hand: timers fire, in order of their time, only when the test
 * calls `advance`, so a test of a deadline asserts what happens before and after it without
 * waiting or measuring wall-clock time.
 * @module
 */

import type { Clock, TimerId } from "../../src/protocol/clock.ts";

interface Timer {
  at: number;
  callback: () => void;
}

/** See the module doc. */
export class FakeClock implements Clock {
  #now: number;
  #next = 1;
  readonly #timers = new Map<TimerId, Timer>();

  constructor(start = 1_000_000) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(callback: () => void, ms: number): TimerId {
    const id = this.#next++ as unknown as TimerId;
    this.#timers.set(id, { at: this.#now + Math.max(0, ms), callback });
    return id;
  }

  clearTimeout(id: TimerId | undefined): void {
    if (id !== undefined) this.#timers.delete(id);
  }

  unref(_id: TimerId): void {}

  ref(_id: TimerId): void {}

  /** Timers waiting to fire. */
  get pending(): number {
    return this.#timers.size;
  }

  /**
   * Lets the promise callbacks queued so far run, then moves time on by `ms`, firing every
   * timer due on the way in order (timers a callback sets fire too when they fall due before
   * the end), with the microtasks each one queued run before the next.
   */
  async advance(ms: number): Promise<void> {
    // What is under way now (promise callbacks queued) runs at the time it began.
    await settle();
    const end = this.#now + ms;
    for (;;) {
      let due: [TimerId, Timer] | undefined;
      for (const entry of this.#timers) {
        if (entry[1].at <= end && (due === undefined || entry[1].at < due[1].at)) due = entry;
      }
      if (due === undefined) break;
      this.#timers.delete(due[0]);
      this.#now = Math.max(this.#now, due[1].at);
      due[1].callback();
      await settle();
    }
    this.#now = end;
    await settle();
  }
}

/** Lets the promise callbacks queued so far (and those they queue) run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}
