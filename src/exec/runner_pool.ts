/**
 * Keeps a few runner processes started ahead of demand for the default sandbox, so a run pays
 * for writing its script and importing it, not for booting Deno (issue 3 target: exec ≤ bare
 * `deno run`). Each runner still serves exactly one run.
 * @module
 */

import type { RunnerProcess } from "./runner_process.ts";

/** An idle runner that exits sooner than this after its start counts as a quick death. */
const QUICK_DEATH_MS = 5_000;
/** Longest wait between refills while runners keep dying. */
const MAX_REFILL_DELAY_MS = 60_000;

/** A pool of pre-started runners for one permission set. */
export class RunnerPool {
  readonly #size: number;
  readonly #spawn: () => Promise<RunnerProcess>;
  readonly #ready: RunnerProcess[] = [];
  #starting = 0;
  #closed = false;
  /** Idle runners that died soon after starting, in a row: each doubles the next wait. */
  #quickDeaths = 0;
  #refillTimer: ReturnType<typeof setTimeout> | null = null;
  readonly #log: (message: string) => void;

  constructor(
    size: number,
    spawn: () => Promise<RunnerProcess>,
    options: { log?: (message: string) => void } = {},
  ) {
    this.#size = size;
    this.#spawn = spawn;
    this.#log = options.log ?? (() => {});
  }

  /**
   * Starts runners until the pool is full. While fresh runners keep dying (a broken
   * installation, a hostile neighbour), refills wait longer each time, up to a minute, instead
   * of spawning in a tight loop.
   */
  fill(): void {
    if (this.#refillTimer !== null) return;
    while (!this.#closed && this.#ready.length + this.#starting < this.#size) {
      this.#starting++;
      const started = Date.now();
      this.#spawn().then((runner) => {
        this.#starting--;
        if (this.#closed) {
          runner.kill(0);
          return;
        }
        this.#ready.push(runner);
        // A pooled runner that dies while idle is dropped, not handed to a run.
        runner.child.status.then(() => {
          const at = this.#ready.indexOf(runner);
          if (at < 0) return;
          this.#ready.splice(at, 1);
          const quick = Date.now() - started < QUICK_DEATH_MS;
          this.#quickDeaths = quick ? this.#quickDeaths + 1 : 0;
          this.#refillLater();
        });
      }, (error) => {
        this.#starting--;
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
   * Takes a ready runner, or starts one when none is ready. The pool is not refilled here:
   * starting Deno costs a core for ~15 ms, and on a small machine that would slow the run that
   * just took a runner; the caller refills with {@linkcode fill} once its run is over.
   */
  async take(): Promise<RunnerProcess> {
    const runner = this.#ready.shift();
    return runner ?? await this.#spawn();
  }

  /** Ends every idle runner and stops refilling. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#refillTimer !== null) clearTimeout(this.#refillTimer);
    this.#refillTimer = null;
    await Promise.all(this.#ready.splice(0).map((r) => r.kill(0)));
  }
}
