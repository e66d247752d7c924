/**
 * Abort callbacks of many calls on one listener per signal (a run's calls all share
 * its signal, and an `addEventListener`/`removeEventListener` pair per call cost more than the
 * rest of a call's bookkeeping on the gateway's side).
 * @module
 */

/** Calls each registered callback once when its signal aborts, unless it was removed first. */
export class AbortFanout {
  readonly #callbacks = new WeakMap<AbortSignal, Set<() => void>>();

  /**
   * Calls `onAbort` when `signal` aborts (at once, in a microtask, when it has already). Returns
   * the function that removes it (idempotent).
   */
  add(signal: AbortSignal, onAbort: () => void): () => void {
    if (signal.aborted) {
      let removed = false;
      queueMicrotask(() => {
        if (!removed) onAbort();
      });
      return () => {
        removed = true;
      };
    }
    let callbacks = this.#callbacks.get(signal);
    if (callbacks === undefined) {
      const added = new Set<() => void>();
      callbacks = added;
      this.#callbacks.set(signal, added);
      signal.addEventListener("abort", () => {
        this.#callbacks.delete(signal);
        for (const callback of [...added]) callback();
      }, { once: true });
    }
    const set = callbacks;
    set.add(onAbort);
    return () => {
      set.delete(onAbort);
    };
  }
}
