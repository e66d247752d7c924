/**
 * Names for runners' script files, each reused once its last runner is dead and its files are
 * gone. Deno keeps what it learns of a module (its dependency analysis, in the shared
 * `DENO_DIR/dep_analysis_cache_v2`) under the module's URL for ever: a new script name per run
 * grew the user's Deno cache by a row per run without bound — a gateway left running all day
 * wrote tens of megabytes there. Reused names keep that to as many
 * rows as runners were ever alive at once.
 * @module
 */

/** Hands out the lowest-numbered free name first, so the set stays as small as demand. */
export class RunnerSlots {
  readonly #free: number[] = [];
  #next = 0;

  /** A slot no live runner holds. */
  take(): number {
    if (this.#free.length === 0) return this.#next++;
    const lowest = Math.min(...this.#free);
    this.#free.splice(this.#free.indexOf(lowest), 1);
    return lowest;
  }

  /** Gives `slot` back: its runner is dead and its files are removed. */
  give(slot: number): void {
    if (slot >= this.#next || this.#free.includes(slot)) {
      throw new Error(`runner slot ${slot} was not taken`);
    }
    this.#free.push(slot);
  }

  /** Slots ever handed out (the most runners alive at once). */
  get size(): number {
    return this.#next;
  }
}
