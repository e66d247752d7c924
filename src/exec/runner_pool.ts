/**
 * Keeps a few runner processes started ahead of demand for the default sandbox, so a run pays
 * for writing its script and importing it, not for booting Deno (issue 3 target: exec ≤ bare
 * `deno run`). Each runner still serves exactly one run.
 * @module
 */

import type { RunnerProcess } from "./runner_process.ts";

/** A pool of pre-started runners for one permission set. */
export class RunnerPool {
  readonly #size: number;
  readonly #spawn: () => Promise<RunnerProcess>;
  readonly #ready: RunnerProcess[] = [];
  #starting = 0;
  #closed = false;
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

  /** Starts runners until the pool is full. */
  fill(): void {
    while (!this.#closed && this.#ready.length + this.#starting < this.#size) {
      this.#starting++;
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
          if (at >= 0) {
            this.#ready.splice(at, 1);
            this.#log("runner pool: an idle runner exited; starting another");
            this.fill();
          }
        });
      }, (error) => {
        this.#starting--;
        this.#log(`runner pool: cannot start a runner: ${error}`);
      });
    }
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
    await Promise.all(this.#ready.splice(0).map((r) => r.kill(0)));
  }
}
