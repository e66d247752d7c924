/**
 * Request/response with a worker entry module run in a child process of its own (the script
 * checker, tool signatures, schema rendering): when it idles out or is stopped, its memory goes
 * back to the system — a Worker's heap inside the server is not returned after `terminate()`.
 * Over a `MessagePeer` on the child's stdio (`child_worker_main.ts` gives the entry the worker
 * scope it expects); a timeout that restarts a stuck worker, crash handling and an idle stop are
 * written here once for every such worker.
 * @module
 */

import { type Clock, systemClock, type TimerId } from "../protocol/clock.ts";
import { MessagePeer } from "../protocol/message_peer.ts";
import type { Transport } from "../protocol/transport.ts";
import { ChildStdioTransport } from "./child_stdio_transport.ts";

/** What the worker entry answers: any message with the `id` of the request it answers. */
export interface WorkerAnswer {
  id: number;
}

/** How a worker entry is started as a process. */
export interface ChildProcessWorkerOptions {
  /**
   * Deno permission flags of the child (`--allow-read`, `--allow-run=deno` …): only what the
   * entry needs, never inherited from the server.
   */
  permissions: string[];
  /** V8 flags (`--max-semi-space-size=1` …), given as `--v8-flags=…`. */
  v8Flags?: string[];
  /** Added to the inherited environment (allocator settings such as `MALLOC_ARENA_MAX`). */
  env?: Record<string, string>;
  /**
   * The `deno.json` whose import map the entry's imports need (`npm:` packages); absent =
   * `--no-config`.
   */
  config?: URL;
}

/**
 * The project's `deno.json` (beside `src/`): its import map resolves the `npm:` packages the
 * checker and the signature extraction load.
 */
export const PROJECT_CONFIG: URL = new URL("../../deno.json", import.meta.url);

/**
 * Settings that shrink a TypeScript-heavy child (the checker, the signature extraction)
 * without slowing its checks measurably: a 1 MB young generation (V8's default grows it to
 * 16 MB per semi-space), two malloc arenas instead of one per thread, and big allocations (the
 * parse of TypeScript's own 9 MB source at import) on `mmap`, so freeing them gives the pages
 * back. `--optimize-for-size` keeps V8 from letting the old generation grow with the garbage
 * of each check.
 */
export const LEAN_PROCESS: Pick<ChildProcessWorkerOptions, "v8Flags" | "env"> = {
  v8Flags: ["--max-semi-space-size=1", "--optimize-for-size"],
  env: { MALLOC_ARENA_MAX: "2", MALLOC_MMAP_THRESHOLD_: "131072" },
};

/** A worker being talked to: its transport, and its process id when it has one. */
export interface StartedWorker {
  transport: Transport;
  /** The process id (also its process group), or null for one that is not a process. */
  pid: number | null;
  /** Settles once the worker is gone and reaped. */
  closed: Promise<unknown>;
}

/** Settings of {@linkcode WorkerClient}. */
export interface WorkerClientOptions {
  /** Module URL of the worker entry. */
  url: URL;
  /** How its process is started. */
  process: ChildProcessWorkerOptions;
  /** The error callers get when the worker crashes (`message` says how it ended). */
  crashed(message: string): Error;
  /** The error callers get when an answer takes longer than `ms`; the worker is restarted. */
  timedOut(ms: number): Error;
  /**
   * Terminate the worker after this long without a pending request (its memory goes back);
   * the next request starts a new one. Absent = keep it. A function is read at every arming,
   * so a config reload applies.
   */
  idleMs?: number | (() => number);
  /** Told each time a worker starts (statistics, warm-up messages). */
  onStart?: (worker: { pid: number | null }) => void;
  /**
   * Starts a worker; the default runs the entry in a child process. Tests give the other end of
   * an in-memory pair.
   */
  start?: (
    url: URL,
    options: ChildProcessWorkerOptions,
    onGarbled: (why: string) => void,
  ) => StartedWorker;
  /** Timeouts and the idle stop. @default {systemClock} */
  clock?: Clock;
}

/**
 * Read access to the entry's directory, which the host imports dynamically — unless the flags
 * already grant all reads (a second `--allow-read=…` would narrow a bare `--allow-read`).
 */
function entryReadFlag(url: URL, permissions: string[]): string[] {
  const all = ["--allow-read", "--allow-all", "-A"];
  if (url.protocol !== "file:" || permissions.some((flag) => all.includes(flag))) return [];
  return [`--allow-read=${decodeURIComponent(new URL(".", url).pathname)}`];
}

/**
 * Runs `url` (a worker entry) with `child_worker_main.ts` in a child process of its own
 * process group, with only the permissions given.
 */
export function startWorkerProcess(
  url: URL,
  options: ChildProcessWorkerOptions,
  onGarbled: (why: string) => void,
): StartedWorker {
  const transport = new ChildStdioTransport({
    argv: [
      Deno.execPath(),
      "run",
      "--no-prompt",
      "--quiet",
      ...(options.config === undefined
        ? ["--no-config"]
        : ["--config", decodeURIComponent(options.config.pathname)]),
      ...options.permissions,
      ...entryReadFlag(url, options.permissions),
      ...(options.v8Flags === undefined || options.v8Flags.length === 0
        ? []
        : [`--v8-flags=${options.v8Flags.join(",")}`]),
      new URL("./child_worker_main.ts", import.meta.url).href,
      url.href,
    ],
    env: { ...options.env, NO_COLOR: "1" },
    onDropped: onGarbled,
  });
  return { transport, pid: transport.child.pid, closed: transport.child.closed };
}

/**
 * Sends requests to a worker, started on the first one, and matches answers by id. A worker
 * that crashes or does not answer in time is terminated and every caller waiting on it gets the
 * error; the next request starts a fresh one.
 *
 * @example
 * ```ts ignore
 * const client = new WorkerClient<{ id: number; text: string }, { id: number; length: number }>({
 *   url: new URL("./length_worker.ts", import.meta.url),
 *   process: { permissions: [] },
 *   crashed: (message) => new Error(`length worker crashed: ${message}`),
 *   timedOut: (ms) => new Error(`length worker gave no answer within ${ms} ms`),
 * });
 * const { length } = await client.request({ text: "abc" }, { timeoutMs: 1_000 });
 * client.stop(new Error("closed"));
 * ```
 */
export class WorkerClient<Request extends WorkerAnswer, Answer extends WorkerAnswer> {
  readonly #options: WorkerClientOptions;
  readonly #clock: Clock;
  #peer: MessagePeer | undefined;
  #exits = new Set<Promise<unknown>>();
  #idleTimer: TimerId | undefined;

  constructor(options: WorkerClientOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
  }

  /** Whether a worker is running now. */
  get running(): boolean {
    return this.#peer !== undefined;
  }

  /** Requests waiting for an answer. */
  get pendingCount(): number {
    return this.#peer?.pendingCount ?? 0;
  }

  /**
   * Sends `message` (its `id` is added) and resolves with the answer carrying that id. Rejects
   * with `crashed(…)` or `timedOut(…)` (null `timeoutMs` = no limit), or with the reason of
   * `stop()`.
   */
  request(
    message: Omit<Request, "id">,
    options: { timeoutMs: number | null },
  ): Promise<Answer> {
    const peer = this.#ensureWorker();
    const clock = this.#clock;
    return new Promise<Answer>((resolve, reject) => {
      const timeoutMs = options.timeoutMs;
      let timer: TimerId | undefined;
      peer.call("message", message, {
        resolve: (answer) => {
          clock.clearTimeout(timer);
          resolve(answer as Answer);
          this.#armIdle(peer);
        },
        reject: (error) => {
          clock.clearTimeout(timer);
          reject(error);
        },
      });
      if (timeoutMs !== null) {
        timer = clock.setTimeout(() => {
          if (this.#peer === peer) this.stop(this.#options.timedOut(timeoutMs));
        }, timeoutMs);
      }
    });
  }

  /**
   * Terminates the worker (if any); every request waiting on it rejects with `reason`. Resolves
   * once its process has exited.
   */
  stop(reason: Error): Promise<void> {
    this.#clock.clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    const peer = this.#peer;
    this.#peer = undefined;
    if (peer !== undefined) {
      peer.failPending(reason);
      peer.close(reason.message);
    }
    return Promise.all([...this.#exits]).then(() => {});
  }

  #ensureWorker(): MessagePeer {
    this.#clock.clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    if (this.#peer !== undefined) return this.#peer;
    const options = this.#options;
    // A line that is not a message: the worker is broken.
    const garbled = () => {
      if (this.#peer === peer) this.stop(options.crashed("a message could not be read"));
    };
    const started = (options.start ?? startWorkerProcess)(options.url, options.process, garbled);
    const exit = started.closed.then(() => {
      this.#exits.delete(exit);
    });
    this.#exits.add(exit);
    const peer: MessagePeer = new MessagePeer(started.transport, {
      goneError: (reason) => options.crashed(reason),
      onDropped: garbled,
    });
    peer.onClose(() => {
      if (this.#peer === peer) this.#peer = undefined;
    });
    this.#peer = peer;
    options.onStart?.({ pid: started.pid });
    return peer;
  }

  #armIdle(peer: MessagePeer): void {
    const option = this.#options.idleMs;
    if (peer.pendingCount > 0 || option === undefined || this.#peer !== peer) return;
    const idleMs = typeof option === "function" ? option() : option;
    this.#clock.clearTimeout(this.#idleTimer);
    this.#idleTimer = this.#clock.setTimeout(() => {
      this.#idleTimer = undefined;
      if (this.#peer !== peer || peer.pendingCount > 0) return;
      this.#peer = undefined;
      peer.close("idle");
    }, idleMs);
    // An idle worker must not keep a process alive that has nothing else to do.
    this.#clock.unref(this.#idleTimer);
  }
}
