/**
 * Puts Deno's analysis of the runner's entry URLs in Deno's cache. A runner loads its entry by
 * a URL that names its storage slot (`runner_flags.ts`, `runnerMainUrl`), and Deno keeps its
 * analysis of a module (its dependencies) in a cache keyed by that URL. Under the OS sandbox a
 * runner sees Deno's cache read-only: it reads what is there, writes nothing, and so analyses
 * the whole entry bundle again on every start when nothing put it there, before its first line
 * runs (`deno task bench:ab` shows it on a run whose runner starts for it). `deno info` analyses a URL without
 * running it and keeps the result: it is run once per slot URL, after that slot's first runner
 * has connected (never beside a runner's own start), so the slot's later runners find it.
 * @module
 */

/** A way to run `deno info` on `url` with `denoDir` as Deno's cache; resolves when it is done. */
export type AnalyseModule = (url: string, denoDir: string) => Promise<void>;

/** Runs `deno info` (the server's own Deno) on `url`: analysed, kept, never run. */
export const denoInfo: AnalyseModule = async (url, denoDir) => {
  const { success, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--no-config", "--no-lock", "--quiet", url],
    clearEnv: true,
    env: { DENO_DIR: denoDir, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!success) {
    const said = new TextDecoder().decode(stderr).trim();
    throw new Error(`deno info ${url} failed${said === "" ? "" : `: ${said}`}`);
  }
};

/** Analyses each runner entry URL once per process, one at a time. */
export class RunnerModuleCache {
  readonly #denoDir: string;
  readonly #analyse: AnalyseModule;
  readonly #onError: (url: string, error: unknown) => void;
  readonly #done = new Set<string>();
  #queue: Promise<void> = Promise.resolve();

  constructor(options: {
    denoDir: string;
    /** Told when an analysis failed (the runners then analyse the URL themselves, as before). */
    onError: (url: string, error: unknown) => void;
    /** @default {denoInfo} */
    analyse?: AnalyseModule;
  }) {
    this.#denoDir = options.denoDir;
    this.#analyse = options.analyse ?? denoInfo;
    this.#onError = options.onError;
  }

  /**
   * Analyses `url` unless it was already (or is queued); resolves when this call's work is done.
   * Never rejects: a failure is told to `onError`.
   */
  warm(url: string): Promise<void> {
    if (this.#done.has(url)) return this.#queue;
    this.#done.add(url);
    this.#queue = this.#queue.then(() =>
      this.#analyse(url, this.#denoDir).catch((error) => this.#onError(url, error))
    );
    return this.#queue;
  }
}
