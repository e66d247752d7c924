/**
 * Removes the web storage (`localStorage`, the Cache API) of finished runs in batches. Every
 * runner has an origin of its own (`runner_process.ts`), and Deno creates an origin's storage
 * only when a script uses it: removing its two paths after every run mostly failed, at two
 * file-system operations and two errors per run (issue 12: CPU per run). A sweep lists the
 * storage directories once for many runs and removes only the finished runs' entries, so no
 * run's storage outlives it by more than the sweep's delay (issue 9, item 8).
 * @module
 */

import { createHash } from "node:crypto";
import { join } from "node:path";

/** Options of {@linkcode RunStorageSweep}. */
export interface RunStorageSweepOptions {
  /**
   * Finished origins that start a sweep at once.
   * @default {64}
   */
  batch?: number;
  /**
   * Longest time a finished origin waits for its sweep, in milliseconds.
   * @default {1000}
   */
  delayMs?: number;
}

/** The key under which Deno keeps the web storage of `origin` (a hex SHA-256 of it). */
export function storageKey(origin: string): string {
  return createHash("sha256").update(origin).digest("hex");
}

/** Where Deno keeps the web storage of the origins under `denoDir`: one entry per origin key. */
export function storageDirs(denoDir: string): string[] {
  return [join(denoDir, "location_data"), join(denoDir, "location_data", "web_cache")];
}

/** Removes finished runs' web storage in batches; see the module doc. */
export class RunStorageSweep {
  readonly #dirs: string[];
  readonly #batch: number;
  readonly #delayMs: number;
  #pending = new Set<string>();
  #timer: ReturnType<typeof setTimeout> | null = null;
  #sweeping: Promise<void> = Promise.resolve();

  constructor(denoDir: string, options: RunStorageSweepOptions = {}) {
    this.#dirs = storageDirs(denoDir);
    this.#batch = options.batch ?? 64;
    this.#delayMs = options.delayMs ?? 1000;
  }

  /** Origins finished and not swept yet. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /** Marks the storage of a finished run's `origin` for removal (see the options for when). */
  add(origin: string): void {
    this.#pending.add(storageKey(origin));
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
   * Removes the storage of every origin marked so far; resolves when it is gone. Never rejects:
   * a directory that cannot be listed or removed is left (the run's origin is never reused).
   */
  flush(): Promise<void> {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    const keys = this.#pending;
    this.#pending = new Set();
    this.#sweeping = this.#sweeping.then(() => keys.size === 0 ? undefined : this.#sweep(keys));
    return this.#sweeping;
  }

  async #sweep(keys: Set<string>): Promise<void> {
    await Promise.all(this.#dirs.map(async (dir) => {
      const present: string[] = [];
      try {
        for await (const entry of Deno.readDir(dir)) {
          if (keys.has(entry.name)) present.push(entry.name);
        }
      } catch {
        return; // no storage of that kind was ever created here
      }
      await Promise.all(
        present.map((key) =>
          Deno.remove(join(dir, key), { recursive: true }).catch(() => undefined)
        ),
      );
    }));
  }
}
