/**
 * Keeps runner processes started ahead of demand for the default sandbox, so a run pays for
 * writing its script and importing it, not for booting Deno (so a warm exec costs no more than
 * a bare `deno run`). Each runner still serves exactly one run. The pool sizes itself to
 * demand: one runner kept warm when quiet; grown, up to `exec.poolSize`, to as many as
 * runs took at once, plus one whenever a run found none ready; back to one after
 * `exec.poolIdleMs` without a run, because every idle runner holds memory.
 * @module
 */

import type { RunnerProcess } from "./runner_process.ts";

/** An idle runner that exits sooner than this after its start counts as a quick death. */
const QUICK_DEATH_MS = 5_000;
/** How long the refill after a run waits while a booted runner is ready (`refillAfterRun`). */
const REFILL_AFTER_RUN_MS = 20;
/** A run taken this soon after the last answer comes from a caller running back to back. */
const BACK_TO_BACK_MS = 25;
/** Longest wait between refills while runners keep dying. */
const MAX_REFILL_DELAY_MS = 60_000;

/** Idle time after which a pool grown by a burst shrinks back (see `idleMs`). */
export const DEFAULT_POOL_IDLE_MS = 60_000;

/** Options of {@linkcode RunnerPool}. */
export interface RunnerPoolOptions {
  log?: (message: string) => void;
  /**
   * Runners kept ready however quiet it is (never more than the pool's size).
   * @default {1}
   */
  min?: number;
  /**
   * How long the pool keeps the runners demand grew it to: after that long without a run
   * taking a runner it shrinks back to `min`. Read at every check.
   * @default {60000}
   */
  idleMs?: number | (() => number);
  /**
   * How long the refill after a run waits while a booted runner is ready (see
   * {@linkcode RunnerPool.refillAfterRun}).
   * @default {20}
   */
  refillAfterRunMs?: number;
}

/** A pool of pre-started runners for one permission set, sized to demand. */
export class RunnerPool {
  readonly #size: number;
  readonly #min: number;
  readonly #idleMs: () => number;
  readonly #refillAfterRunMs: number;
  readonly #spawn: () => Promise<RunnerProcess>;
  readonly #ready: RunnerProcess[] = [];
  /** Ready runners that have connected: booted, so a run taking one waits for nothing. */
  readonly #connected = new WeakSet<RunnerProcess>();
  #starting = 0;
  /** Runs waiting for a runner already starting, first come first served (null: spawn one). */
  readonly #waiters: ((runner: RunnerProcess | null) => void)[] = [];
  /** Runners handed to runs and still alive. */
  #inUse = 0;
  /** Runners (ready or starting) wanted now: `min` when quiet, more after demand. */
  #target: number;
  /** Runners taken since the last shrink check. */
  #takes = 0;
  #shrinkTimer: ReturnType<typeof setTimeout> | null = null;
  #closed = false;
  /** Idle runners that died soon after starting, in a row: each doubles the next wait. */
  #quickDeaths = 0;
  #refillTimer: ReturnType<typeof setTimeout> | null = null;
  /** The refill after a run, while it waits (see {@linkcode RunnerPool.refillAfterRun}). */
  #afterRunTimer: ReturnType<typeof setTimeout> | null = null;
  /** Whether that refill comes at once (not after `refillAfterRunMs`). */
  #afterRunSoon = false;
  /** When a run was last answered (`performance.now()`). */
  #lastAnswer = -Infinity;
  /** Whether the last run was taken right after an answer (a caller running back to back). */
  #backToBack = false;
  readonly #log: (message: string) => void;

  /** `size` is the most runners kept ready (`exec.poolSize`); 0 keeps none. */
  constructor(
    size: number,
    spawn: () => Promise<RunnerProcess>,
    options: RunnerPoolOptions = {},
  ) {
    this.#size = size;
    this.#min = Math.min(options.min ?? 1, size);
    this.#target = this.#min;
    const idleMs = options.idleMs ?? DEFAULT_POOL_IDLE_MS;
    this.#idleMs = typeof idleMs === "function" ? idleMs : () => idleMs;
    this.#refillAfterRunMs = options.refillAfterRunMs ?? REFILL_AFTER_RUN_MS;
    this.#spawn = spawn;
    this.#log = options.log ?? (() => {});
  }

  /** Runners ready or starting that the pool aims to hold now. */
  get target(): number {
    return this.#target;
  }

  /** Runners ready to be taken now. */
  get readyCount(): number {
    return this.#ready.length;
  }

  /**
   * Refills once a run has been answered (called as the answer goes out; the refill itself
   * comes after it, never on the run's path). While a booted runner is still ready, the next
   * run waits for nothing, so the refill waits `refillAfterRunMs` (20 ms): the caller
   * that just got its answer (a `gateway exec` process printing it and exiting, an agent
   * reading it) has the machine first, not shared with a Deno booting. On this 2-core machine
   * that boot slowed a warm CLI exec's exit. At once when none is
   * booted, or when runs come back to back (the last one was taken within
   * {@linkcode BACK_TO_BACK_MS} of an answer): that caller needs the runner more.
   */
  refillAfterRun(): void {
    this.#lastAnswer = performance.now();
    if (this.#closed) return;
    const soon = this.#backToBack ||
      !this.#ready.some((runner) => this.#connected.has(runner));
    if (this.#afterRunTimer !== null) {
      // One refill at a time; one that waits gives way to one wanted at once.
      if (!soon || this.#afterRunSoon) return;
      clearTimeout(this.#afterRunTimer);
    }
    const timer = setTimeout(() => {
      this.#afterRunTimer = null;
      this.fill();
    }, soon ? 0 : this.#refillAfterRunMs);
    if (!soon) Deno.unrefTimer(timer);
    this.#afterRunTimer = timer;
    this.#afterRunSoon = soon;
  }

  /**
   * Starts runners until the pool holds its target. While fresh runners keep dying (a broken
   * installation, a hostile neighbour), refills wait longer each time, up to a minute, instead
   * of spawning in a tight loop.
   */
  fill(): void {
    if (this.#refillTimer !== null) return;
    while (!this.#closed && this.#ready.length + this.#starting < this.#target) {
      this.#starting++;
      const started = Date.now();
      this.#spawn().then((runner) => {
        this.#starting--;
        if (this.#closed) {
          runner.kill(0);
          return;
        }
        const waiter = this.#waiters.shift();
        if (waiter) {
          waiter(runner);
          return;
        }
        this.#ready.push(runner);
        runner.connection.then(() => this.#connected.add(runner), () => {});
        // A pooled runner that dies while idle is dropped, not handed to a run.
        runner.status.then(() => {
          const at = this.#ready.indexOf(runner);
          if (at < 0) return;
          this.#ready.splice(at, 1);
          const quick = Date.now() - started < QUICK_DEATH_MS;
          this.#quickDeaths = quick ? this.#quickDeaths + 1 : 0;
          this.#refillLater();
        });
      }, (error) => {
        this.#starting--;
        // A run waiting for this runner starts one of its own.
        this.#waiters.shift()?.(null);
        this.#quickDeaths++;
        this.#log(`runner pool: cannot start a runner: ${error}`);
        this.#refillLater();
      });
    }
  }

  #refillLater(): void {
    if (this.#closed || this.#refillTimer !== null) return;
    const delay = this.#quickDeaths === 0
      ? 0
      : Math.min(MAX_REFILL_DELAY_MS, 100 * 2 ** Math.min(this.#quickDeaths - 1, 10));
    if (delay > 0) {
      this.#log(`runner pool: idle runners keep exiting; refilling in ${delay} ms`);
    }
    this.#refillTimer = setTimeout(() => {
      this.#refillTimer = null;
      this.fill();
    }, delay);
  }

  /**
   * Takes a ready runner; when none is ready, the first of those already starting (it is
   * further along than a new one would be, and a new one would take a core from it), or a new
   * one when none is starting for this run. A run that found none ready grows the pool and
   * starts the runners it now wants at once, since it waits anyway. Otherwise the pool is not
   * refilled here: starting Deno costs a core for ~25 ms, and on a small machine that would
   * slow the run that just took a runner; the caller refills with
   * {@linkcode RunnerPool.refillAfterRun} once its run is answered.
   */
  async take(): Promise<RunnerProcess> {
    this.#backToBack = performance.now() - this.#lastAnswer < BACK_TO_BACK_MS;
    const ready = this.#ready.shift();
    let runner = ready;
    if (runner === undefined) {
      // As many runs at once as now (those running, those waiting, this one) may come
      // again, and this one wanted one more.
      this.#grow(this.#inUse + this.#waiters.length + 2);
      this.fill();
      if (this.#starting > this.#waiters.length) {
        runner = await new Promise<RunnerProcess | null>((resolve) =>
          this.#waiters.push(resolve)
        ) ?? undefined;
      }
      runner ??= await this.#spawn();
    }
    this.#takes++;
    this.#inUse++;
    runner.status.then(() => this.#inUse--);
    // A ready runner still booting (spawned, not yet connected) makes the run wait as much as
    // none ready would: the pool grows as it does then, so the next run finds one booted.
    if (ready !== undefined) {
      this.#grow(this.#connected.has(ready) ? this.#inUse : this.#inUse + this.#waiters.length + 1);
    }
    return runner;
  }

  /** Raises the target to `demand` (at most the pool's size); a run waiting starts them now. */
  #grow(demand: number): void {
    if (demand <= this.#target || this.#target >= this.#size) return;
    this.#target = Math.min(this.#size, demand);
    this.#armShrink();
  }

  /** Checks every `idleMs` whether the burst that grew the pool has passed. */
  #armShrink(): void {
    if (this.#shrinkTimer !== null || this.#closed) return;
    const timer = setTimeout(() => {
      this.#shrinkTimer = null;
      this.#shrink();
    }, this.#idleMs());
    // A pool waiting to shrink must not keep a process alive that has nothing else to do.
    Deno.unrefTimer(timer);
    this.#shrinkTimer = timer;
  }

  #shrink(): void {
    const quiet = this.#takes === 0;
    this.#takes = 0;
    const wanted = Math.max(this.#min, this.#inUse);
    if (quiet && wanted < this.#target) {
      this.#target = wanted;
      const extra = this.#ready.length + this.#starting - this.#target;
      for (const runner of this.#ready.splice(0, Math.max(0, extra))) runner.kill(0);
    }
    if (this.#target > this.#min) this.#armShrink();
  }

  /** Ends every idle runner and stops refilling. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const waiter of this.#waiters.splice(0)) waiter(null);
    if (this.#refillTimer !== null) clearTimeout(this.#refillTimer);
    this.#refillTimer = null;
    if (this.#afterRunTimer !== null) clearTimeout(this.#afterRunTimer);
    this.#afterRunTimer = null;
    if (this.#shrinkTimer !== null) clearTimeout(this.#shrinkTimer);
    this.#shrinkTimer = null;
    await Promise.all(this.#ready.splice(0).map((r) => r.kill(0)));
  }
}
