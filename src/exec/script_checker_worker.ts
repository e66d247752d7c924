/**
 * Runs the warm `ScriptChecker` in a Deno Web Worker, so type checks never block the server's
 * event loop; owns the message protocol and restarts a worker that hangs or dies.
 * @module
 */

import { join } from "node:path";
import {
  LEAN_PROCESS,
  PROJECT_CONFIG,
  WorkerClient,
  type WorkerClientOptions,
} from "../process/worker_client.ts";
import type { Clock } from "../protocol/clock.ts";
import type { Diagnostic } from "../protocol/run_document.ts";
import { denoCheckScript, importsOnlyNodeBuiltins } from "./deno_check_oracle.ts";
import {
  type PreparedScript,
  type PrepareScriptOptions,
  type PrepareScriptResult,
  toSourcePosition,
} from "./script_transform.ts";

/** Options of {@linkcode ScriptCheckerWorker.start}. */
export interface ScriptCheckerWorkerOptions {
  /** Directory for the cached `deno types` output (the data dir's cache directory). */
  cacheDir: string;
  /**
   * Declarations of the script globals to start with.
   * @default {""}
   */
  globals?: string;
  /**
   * The `deno` executable asked for `deno types` on a cache miss.
   * @default {Deno.execPath()}
   */
  denoPath?: string;
  /**
   * How long one check may take before the worker is presumed stuck, terminated and restarted.
   * @default {10000}
   */
  checkTimeoutMs?: number;
  /**
   * How long the worker may sit unused before it is terminated and its memory (TypeScript,
   * Deno's declarations, the warm program: 100–250 MB) given back; the next call starts a
   * fresh one (`exec.checkerIdleMs`). Read at every arming, so a config reload applies.
   * @default {300000}
   */
  idleMs?: number | (() => number);
  /**
   * Starts the worker; the default runs `script_checker_worker_entry.ts` in a child process.
   * Tests give the other end of an in-memory pair.
   */
  startWorker?: WorkerClientOptions["start"];
  /** The check timeout and the idle stop. @default {systemClock} */
  clock?: Clock;
}

/** A request sent to the checker worker (`script_checker_worker_entry.ts`). */
export type CheckerRequest =
  | { id: number; op: "init"; cacheDir: string; globals: string; denoPath?: string }
  | { id: number; op: "declarations"; cacheDir: string; denoPath?: string }
  | { id: number; op: "setGlobals"; globals: string }
  | { id: number; op: "prepare"; source: string; options: PrepareScriptOptions }
  | { id: number; op: "check"; script: string | PreparedScript }
  | { id: number; op: "globalsDiagnostics" };

/** The worker's answer to one {@linkcode CheckerRequest}, matched by `id`. */
export type CheckerResponse =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; name: string; message: string };

type Operation =
  | { op: "init"; cacheDir: string; globals: string; denoPath?: string }
  | { op: "declarations"; cacheDir: string; denoPath?: string }
  | { op: "setGlobals"; globals: string }
  | { op: "prepare"; source: string; options: PrepareScriptOptions }
  | { op: "check"; script: string | PreparedScript }
  | { op: "globalsDiagnostics" };

const DEFAULT_CHECK_TIMEOUT_MS = 10_000;
/** Idle time after which the worker is terminated (see `idleMs`). */
export const DEFAULT_CHECKER_IDLE_MS = 300_000;
/** How long `deno check` of a script importing `node:` built-ins may take (seconds of CPU). */
const DEFAULT_DENO_CHECK_TIMEOUT_MS = 30_000;

/**
 * The server's handle on a warm script checker running in a Web Worker. Nothing starts until
 * it is used: `prepare()` starts the worker (TypeScript's parser only), the first check also
 * warms it up (loads Deno's declarations and the globals, checks a small script); calls made
 * meanwhile wait for that. Unused for `idleMs`, the worker is terminated so its memory goes
 * back to the system; the next call starts it again with the latest globals. A check that takes
 * longer than `checkTimeoutMs`, or a worker that crashes, rejects the calls in flight; the next
 * call starts a fresh worker.
 *
 * @example Check a script off the event loop
 * ```ts ignore
 * const checker = ScriptCheckerWorker.start({ cacheDir, globals });
 * const diagnostics = await checker.check("await tools.kv.get({ key: 1 })");
 * await checker.close();
 * ```
 */
export class ScriptCheckerWorker {
  #options: ScriptCheckerWorkerOptions;
  #globals: string;
  #client: WorkerClient<CheckerRequest, CheckerResponse>;
  #ready: Promise<void> | null = null;
  #closed = false;
  /**
   * While the worker has served only {@linkcode preload}: how long it may then sit unused
   * (instead of `idleMs`); null once a caller has used it.
   */
  #preloadGraceMs: number | null = null;
  /** Whether the running worker has finished its warm-up (`init`). */
  #warm = false;

  private constructor(options: ScriptCheckerWorkerOptions) {
    this.#options = options;
    this.#globals = options.globals ?? "";
    this.#client = new WorkerClient({
      url: new URL("./script_checker_worker_entry.ts", import.meta.url),
      // A process of its own: when it idles out, TypeScript's 100–250 MB go back to the system.
      process: {
        config: PROJECT_CONFIG,
        permissions: [
          "--allow-read",
          "--allow-env",
          `--allow-write=${options.cacheDir}`,
          `--allow-run=${options.denoPath ?? Deno.execPath()}`,
        ],
        ...LEAN_PROCESS,
      },
      crashed: (message) => new Error(`Script checker worker crashed: ${message}`),
      timedOut: (ms) =>
        new Error(`Script check timed out: no answer from the checker worker within ${ms} ms`),
      idleMs: () => {
        if (this.#preloadGraceMs !== null) return this.#preloadGraceMs;
        const option = this.#options.idleMs ?? DEFAULT_CHECKER_IDLE_MS;
        return typeof option === "function" ? option() : option;
      },
      // A fresh worker (first use, or after a crash, a timeout or idling) has not had `init`.
      onStart: () => {
        this.#ready = null;
        this.#warm = false;
      },
      ...(options.startWorker === undefined ? {} : { start: options.startWorker }),
      ...(options.clock === undefined ? {} : { clock: options.clock }),
    });
  }

  /**
   * The handle; the worker starts on first use (a server that never type-checks never pays
   * for it). Await {@linkcode ready} to start and warm it up ahead of a check.
   */
  static start(options: ScriptCheckerWorkerOptions): ScriptCheckerWorker {
    return new ScriptCheckerWorker(options);
  }

  /**
   * Starts the worker ahead of its first use and has it load TypeScript's parser (what every
   * run's `prepare()` needs) and Deno's declarations (generated once per data dir and Deno
   * version, the first thing a warm-up needs); the warm-up itself is left to the first check.
   * So the first run after a server start waits for no process to boot and no TypeScript to
   * load. A worker nobody uses is given back after `graceMs` rather than `idleMs`. Does nothing
   * when a worker runs already; never rejects (a failure shows on the next call).
   */
  preload(graceMs: number): void {
    if (this.#closed || this.#client.running) return;
    this.#preloadGraceMs = graceMs;
    this.#send({ op: "prepare", source: "0", options: { inline: true } }, this.#timeoutMs())
      .catch(() => {});
    const declarations: Operation = {
      op: "declarations",
      cacheDir: this.#options.cacheDir,
      ...(this.#options.denoPath === undefined ? {} : { denoPath: this.#options.denoPath }),
    };
    this.#send(declarations, null).catch(() => {});
  }

  /**
   * Resolves when a warm-up in flight is over, at once when none is; never rejects and never
   * starts one (what else the gateway starts may wait for it, not make it).
   */
  warming(): Promise<void> {
    if (this.#warm || this.#ready === null || !this.#client.running) return Promise.resolve();
    return this.#ready.catch(() => {});
  }

  /** Whether the worker is running and warm: a check now waits for no start-up. */
  get warm(): boolean {
    return this.#client.running && this.#warm;
  }

  /** True while a worker is running (started and not yet given back after idling). */
  get running(): boolean {
    return this.#client.running;
  }

  /**
   * Resolves when the worker has loaded TypeScript and Deno's declarations and checked a first
   * script; rejects with the reason when it could not (for example `deno types` failed). Such
   * a failure is final for this handle: checks reject with it, while `prepare()` still works.
   */
  ready(): Promise<void> {
    if (this.#closed) return Promise.reject(closedError());
    this.#preloadGraceMs = null;
    if (!this.#client.running) this.#ready = null;
    return this.#ready ?? this.#spawn();
  }

  /**
   * Replaces the script globals' declarations (the rendered types of every namespace). The
   * text is kept for a worker started later; a failed warm-up is not reported here but by
   * `check()`.
   */
  async setGlobals(dtsText: string): Promise<void> {
    this.#globals = dtsText;
    // A worker given back after idling took its globals with it: the next one gets these.
    if (!this.#client.running) this.#ready = null;
    const ready = this.#ready;
    if (this.#closed || ready === null) return;
    try {
      await ready;
    } catch {
      return;
    }
    // A worker started meanwhile was given these globals with its init.
    if (this.#ready !== ready) return;
    await this.#send({ op: "setGlobals", globals: dtsText }, this.#timeoutMs());
  }

  /**
   * `prepareScript()` in the worker, so the server need not load TypeScript itself. Answered
   * at once, even while the checker warms up or when its warm-up failed.
   */
  async prepare(source: string, options: PrepareScriptOptions): Promise<PrepareScriptResult> {
    if (this.#closed) throw closedError();
    this.#preloadGraceMs = null;
    const operation: Operation = { op: "prepare", source, options };
    return await this.#send(operation, this.#timeoutMs()) as PrepareScriptResult;
  }

  /**
   * `ScriptChecker.check()` in the worker: errors at the script's own lines. `timeoutMs`
   * (default: the `checkTimeoutMs` option) bounds this one check, e.g. by the run's deadline;
   * past it the worker is restarted and the check rejects.
   */
  async check(
    script: string | PreparedScript,
    options: { timeoutMs?: number } = {},
  ): Promise<Diagnostic[]> {
    const found = await this.#call({ op: "check", script }, options.timeoutMs) as Diagnostic[];
    return await this.#withDenoCheck(script, found, options.timeoutMs);
  }

  /**
   * For a script importing `node:` built-ins that the in-memory check accepted, `deno check`
   * too (see `deno_check_oracle.ts`): it knows Deno's embedded Node types, which the in-memory
   * checker does not. It runs here, a subprocess beside the worker, so its seconds never hold
   * up other checks; when it cannot answer in time the in-memory result stands.
   */
  async #withDenoCheck(
    script: string | PreparedScript,
    found: Diagnostic[],
    timeoutMs: number | undefined,
  ): Promise<Diagnostic[]> {
    const code = typeof script === "string" ? script : script.code;
    if (found.length > 0 || !importsOnlyNodeBuiltins(code)) return found;
    const hook = typeof script === "string"
      ? ""
      : `declare var ${script.resultFunction}: (value: unknown) => void;\n`;
    const oracle = await denoCheckScript({
      code,
      globals: `${this.#globals}\n${hook}`,
      scratchDir: join(this.#options.cacheDir, "deno-check"),
      timeoutMs: timeoutMs ?? DEFAULT_DENO_CHECK_TIMEOUT_MS,
      ...(this.#options.denoPath === undefined ? {} : { denoPath: this.#options.denoPath }),
    });
    if (oracle === null) return found;
    return typeof script === "string"
      ? oracle
      : oracle.map((d) => ({ ...d, ...toSourcePosition(script, d) }));
  }

  /** `ScriptChecker.globalsDiagnostics()` in the worker: errors in the globals text itself. */
  async globalsDiagnostics(): Promise<Diagnostic[]> {
    return await this.#call({ op: "globalsDiagnostics" }) as Diagnostic[];
  }

  /** Terminates the worker; calls in flight and later calls reject. */
  close(): Promise<void> {
    this.#closed = true;
    this.#ready = null;
    return this.#client.stop(closedError());
  }

  async #call(operation: Operation, timeoutMs?: number): Promise<unknown> {
    if (this.#closed) throw closedError();
    await this.ready();
    return await this.#send(operation, timeoutMs ?? this.#timeoutMs());
  }

  #timeoutMs(): number {
    return this.#options.checkTimeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
  }

  /** Sends the worker `init` (Deno's declarations, the globals), starting it if needed. */
  #spawn(): Promise<void> {
    const init: Operation = {
      op: "init",
      cacheDir: this.#options.cacheDir,
      globals: this.#globals,
      ...(this.#options.denoPath === undefined ? {} : { denoPath: this.#options.denoPath }),
    };
    const ready: Promise<void> = this.#send(init, null).then(() => {
      if (this.#ready === ready) this.#warm = true;
    });
    // Nobody may be waiting yet: a failure then is reported by the next call instead.
    ready.catch(() => {});
    this.#ready = ready;
    return ready;
  }

  async #send(operation: Operation, timeoutMs: number | null): Promise<unknown> {
    const response = await this.#client.request(operation, { timeoutMs });
    if (response.ok) return response.value;
    throw response.name === "RangeError"
      ? new RangeError(response.message)
      : new Error(response.message);
  }
}

function closedError(): Error {
  return new Error("Script checker worker is closed");
}
