/**
 * Per-call deadlines on one timer (a timer set and cleared for every call costs more than the
 * rest of the call's bookkeeping). Calls mostly end long before their deadline and later calls
 * have later deadlines, so one timer armed for the earliest deadline serves them all: adding a
 * later deadline and removing one touch no timer.
 * @module
 */

import { type Clock, systemClock, type TimerId } from "../../protocol/clock.ts";

interface Entry {
  at: number;
  fire: () => void;
}

/** Deadlines (epoch ms) that call `fire` once reached, unless removed first. */
export class CallDeadlines {
  readonly #entries = new Set<Entry>();
  readonly #clock: Clock;
  #timer: TimerId | undefined;
  /** When the armed timer fires (Infinity when none is armed). */
  #timerAt = Infinity;

  constructor(clock: Clock = systemClock) {
    this.#clock = clock;
  }

  /** Number of deadlines still pending. */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * Calls `fire` at `at` (epoch ms) or soon after. Returns the function that removes the
   * deadline (idempotent).
   */
  add(at: number, fire: () => void): () => void {
    const entry: Entry = { at, fire };
    this.#entries.add(entry);
    if (at < this.#timerAt) this.#arm(at);
    return () => {
      this.#entries.delete(entry);
    };
  }

  /** Drops every deadline and the timer (the owner stopped). */
  clear(): void {
    this.#entries.clear();
    this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = Infinity;
  }

  #arm(at: number): void {
    this.#clock.clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = this.#clock.setTimeout(() => this.#expire(), Math.max(0, at - this.#clock.now()));
    // Armed for the earliest deadline even after its call ended: never what keeps a process
    // alive (a waiting call's own I/O does that).
    this.#clock.unref(this.#timer);
  }

  #expire(): void {
    this.#timer = undefined;
    this.#timerAt = Infinity;
    const now = this.#clock.now();
    const due: Entry[] = [];
    let next = Infinity;
    for (const entry of this.#entries) {
      if (entry.at <= now) due.push(entry);
      else if (entry.at < next) next = entry.at;
    }
    for (const entry of due) this.#entries.delete(entry);
    if (next !== Infinity) this.#arm(next);
    for (const entry of due) entry.fire();
  }
}
