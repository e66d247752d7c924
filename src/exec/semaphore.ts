/**
 * The one counting semaphore of a run's life: turns for runs (`exec.maxConcurrentRuns`, each
 * run a Deno process) and turns for one run's tool calls (`exec.maxConcurrentCalls`). Waiters
 * are served first come, first served; the limit is read at every acquire, so a config reload
 * applies to the next one.
 * @module
 */

/**
 * Counts holders against a limit; past it, `acquire` waits its turn instead of failing.
 *
 * @example Two turns at most
 * ```ts
 * import assert from "node:assert/strict";
 * import { Semaphore } from "./semaphore.ts";
 * const turns = new Semaphore(() => 2);
 * const a = await turns.acquire();
 * await turns.acquire();
 * let third = false;
 * const waiting = turns.acquire().then((release) => (third = true, release));
 * assert.equal(turns.waiting, 1);
 * a();
 * await waiting;
 * assert.equal(third, true);
 * ```
 *
 * @example A turn taken at once, when one is free
 * ```ts
 * import assert from "node:assert/strict";
 * import { Semaphore } from "./semaphore.ts";
 * const turns = new Semaphore(() => 1);
 * const release = turns.tryAcquire();
 * assert.ok(release !== null);
 * assert.equal(turns.tryAcquire(), null);
 * release();
 * assert.equal(turns.held, 0);
 * ```
 */
export class Semaphore {
  readonly #limit: () => number;
  #held = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(limit: () => number) {
    this.#limit = limit;
  }

  /** Holders now. */
  get held(): number {
    return this.#held;
  }

  /** Acquirers waiting for a turn. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /**
   * Takes a turn at once when one is free and returns the function that gives it back, or
   * returns null (the caller then waits with {@linkcode acquire}). A call that finds a turn
   * free costs no promise and no microtask (every tool call of a run takes one).
   */
  tryAcquire(): (() => void) | null {
    return this.#held < this.#limit() ? this.#take() : null;
  }

  /**
   * Resolves with the function that gives the turn back (calling it twice gives back one
   * turn). An aborted `signal` takes a turn at once, past the limit, so a cancelled run leaves
   * the queue without waiting and can still answer (and be recorded) as cancelled.
   */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (this.#held < this.#limit() || signal?.aborted) return Promise.resolve(this.#take());
    return new Promise((resolve) => {
      const go = () => {
        signal?.removeEventListener("abort", leave);
        resolve(this.#take());
      };
      const leave = () => {
        const at = this.#waiting.indexOf(go);
        if (at >= 0) this.#waiting.splice(at, 1);
        resolve(this.#take());
      };
      signal?.addEventListener("abort", leave, { once: true });
      this.#waiting.push(go);
    });
  }

  #take(): () => void {
    this.#held++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#held--;
      if (this.#held < this.#limit()) this.#waiting.shift()?.();
    };
  }
}
