/**
 * Removes the web storage (`localStorage`, the Cache API) of finished runs in batches, and
 * hands out the storage slots that key it. Every live runner has storage of its own
 * (`runner_process.ts`: Deno keys it by the runner's main module URL, which carries the slot),
 * and Deno creates it only when a script uses it: removing its two paths after every run mostly
 * failed, at two file-system operations and two errors per run (CPU per run). A sweep
 * lists the storage directories once for many runs and removes only the finished runs' entries,
 * so no run's storage outlives it by more than the sweep's delay. A slot is
 * handed out again only once its storage is gone, so a run never sees another's, and the names
 * Deno caches per module URL stay as few as runs alive within one sweep's delay.
 * @module
 */

import { createHash } from "node:crypto";
import { join } from "node:path";
import { RunnerSlots } from "./runner_slots.ts";

/** Options of {@linkcode RunStorageSweep}. */
export interface RunStorageSweepOptions {
  /**
   * Finished runs whose storage starts a sweep at once.
   * @default {64}
   */
  batch?: number;
  /**
   * Longest time a finished run's storage waits for its sweep, in milliseconds.
   * @default {1000}
   */
  delayMs?: number;
}

/**
 * The key under which Deno keeps the web storage named `name` (a hex SHA-256 of it): the
 * `--location` origin when there is one, else the main module's URL.
 */
export function storageKey(name: string): string {
  return createHash("sha256").update(name).digest("hex");
}

/** Where Deno keeps web storage under `denoDir`: one entry per storage key. */
export function storageDirs(denoDir: string): string[] {
  return [join(denoDir, "location_data"), join(denoDir, "location_data", "web_cache")];
}

/** Removes finished runs' web storage in batches; see the module doc. */
export class RunStorageSweep {
  readonly #dirs: string[];
  readonly #batch: number;
  readonly #delayMs: number;
  #pending = new Set<string>();
  /** Slots whose storage is marked in `#pending`, freed once their sweep is done. */
  #pendingSlots: number[] = [];
  readonly #slots = new RunnerSlots();
  #timer: ReturnType<typeof setTimeout> | null = null;
  /** The storage keys of the slots' names, by name (as many as slots ever handed out). */
  readonly #slotKeys = new Map<string, string>();
  #sweeping: Promise<void> = Promise.resolve();

  constructor(denoDir: string, options: RunStorageSweepOptions = {}) {
    this.#dirs = storageDirs(denoDir);
    this.#batch = options.batch ?? 64;
    this.#delayMs = options.delayMs ?? 1000;
  }

  /** Storage names finished and not swept yet. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /** A storage slot no live run holds and whose storage is gone (see the module doc). */
  takeSlot(): number {
    return this.#slots.take();
  }

  /**
   * The run that held `slot` is over (its process group is dead): its storage, keyed by
   * `name`, is removed with the next batch, and the slot is free again after that.
   */
  release(slot: number, name: string): void {
    this.#pendingSlots.push(slot);
    // A slot's storage name is the same every time it is used: its hash is taken once.
    let key = this.#slotKeys.get(name);
    if (key === undefined) this.#slotKeys.set(name, key = storageKey(name));
    this.#mark(key);
  }

  /** Storage slots ever handed out (the most runs alive within one sweep's delay). */
  get slotCount(): number {
    return this.#slots.size;
  }

  /** Marks the storage keyed by `name` for removal (see the options for when). */
  add(name: string): void {
    this.#mark(storageKey(name));
  }

  #mark(key: string): void {
    this.#pending.add(key);
    if (this.#pending.size >= this.#batch) {
      this.flush();
      return;
    }
    if (this.#timer !== null) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.flush();
    }, this.#delayMs);
    // A sweep waiting must not keep a process alive that has nothing else to do; the owner
    // flushes at its close.
    Deno.unrefTimer(this.#timer);
  }

  /**
   * Removes the storage of everything marked so far; resolves when it is gone and the released
   * slots are free. Never rejects: storage that cannot be removed is left, and then none of the
   * batch's slots is handed out again (a later run must not see it).
   */
  flush(): Promise<void> {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    const keys = this.#pending;
    const slots = this.#pendingSlots;
    this.#pending = new Set();
    this.#pendingSlots = [];
    this.#sweeping = this.#sweeping.then(async () => {
      const removed = keys.size === 0 || await this.#sweep(keys);
      if (removed) { for (const slot of slots) this.#slots.give(slot); }
    });
    return this.#sweeping;
  }

  /** Removes the entries named by `keys`; false when one of them could not be removed. */
  async #sweep(keys: Set<string>): Promise<boolean> {
    const results = await Promise.all(this.#dirs.map(async (dir) => {
      const present: string[] = [];
      try {
        for await (const entry of Deno.readDir(dir)) {
          if (keys.has(entry.name)) present.push(entry.name);
        }
      } catch (error) {
        // No storage of that kind was ever created here; anything else leaves it unknown.
        return error instanceof Deno.errors.NotFound;
      }
      const removed = await Promise.all(
        present.map((key) =>
          Deno.remove(join(dir, key), { recursive: true }).then(
            () => true,
            (error) => error instanceof Deno.errors.NotFound,
          )
        ),
      );
      return removed.every(Boolean);
    }));
    return results.every(Boolean);
  }
}
