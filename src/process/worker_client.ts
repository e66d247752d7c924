/**
 * Request/response over a Deno Web Worker or a worker entry run as a child process
 * (`ChildProcessWorker`): ids, pending answers, a timeout that restarts a stuck worker, crash
 * handling and an idle stop. One client for every worker the server runs (tool signatures, the
 * script checker), so the rules are written once.
 * @module
 */

import {
  ChildProcessWorker,
  type ChildProcessWorkerOptions,
  type WorkerLike,
} from "./child_process_worker.ts";

/** What the worker entry answers: any message with the `id` of the request it answers. */
export interface WorkerAnswer {
  id: number;
}

/** Settings of {@linkcode WorkerClient}. */
export interface WorkerClientOptions {
  /** Module URL of the worker entry (started with `type: "module"`). */
  url: URL;
  /**
   * Run the entry in a child process with these flags instead of a Worker in this process:
   * its memory goes back to the system when it stops (a Worker's stays with the server).
   */
  process?: ChildProcessWorkerOptions;
  /** The error callers get when the worker crashes (`message` is what Deno reported). */
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
  onStart?: (worker: WorkerLike) => void;
}

interface Pending<Answer> {
  resolve(answer: Answer): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout> | undefined;
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
 *   crashed: (message) => new Error(`length worker crashed: ${message}`),
 *   timedOut: (ms) => new Error(`length worker gave no answer within ${ms} ms`),
 * });
 * const { length } = await client.request({ text: "abc" }, { timeoutMs: 1_000 });
 * client.stop(new Error("closed"));
 * ```
 */
export class WorkerClient<Request extends WorkerAnswer, Answer extends WorkerAnswer> {
  #options: WorkerClientOptions;
  #worker: WorkerLike | undefined;
  #exits = new Set<Promise<unknown>>();
  #pending = new Map<number, Pending<Answer>>();
  #nextId = 1;
  #idleTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(options: WorkerClientOptions) {
    this.#options = options;
  }

  /** Whether a worker is running now. */
  get running(): boolean {
    return this.#worker !== undefined;
  }

  /** Requests waiting for an answer. */
  get pendingCount(): number {
    return this.#pending.size;
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
    const worker = this.#ensureWorker();
    const id = this.#nextId++;
    return new Promise<Answer>((resolve, reject) => {
      const timeoutMs = options.timeoutMs;
      const timer = timeoutMs === null ? undefined : setTimeout(() => {
        if (this.#worker === worker) this.stop(this.#options.timedOut(timeoutMs));
      }, timeoutMs);
      this.#pending.set(id, { resolve, reject, timer });
      worker.postMessage({ ...message, id } as Request);
    });
  }

  /**
   * Terminates the worker (if any); every request waiting on it rejects with `reason`. Resolves
   * once a worker process has exited (at once for a Worker).
   */
  stop(reason: Error): Promise<void> {
    if (this.#idleTimer !== undefined) clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    this.#terminate();
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const entry of pending) {
      clearTimeout(entry.timer);
      entry.reject(reason);
    }
    return Promise.all([...this.#exits]).then(() => {});
  }

  #terminate(): void {
    this.#worker?.terminate();
    this.#worker = undefined;
  }

  #ensureWorker(): WorkerLike {
    if (this.#idleTimer !== undefined) clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    if (this.#worker !== undefined) return this.#worker;
    const worker = this.#start();
    worker.onmessage = (event: MessageEvent<Answer>) => this.#settle(event.data);
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      if (this.#worker === worker) this.stop(this.#options.crashed(event.message));
    };
    worker.onmessageerror = () => {
      if (this.#worker === worker) this.stop(this.#options.crashed("a message could not be read"));
    };
    this.#worker = worker;
    this.#options.onStart?.(worker);
    return worker;
  }

  #start(): WorkerLike {
    if (this.#options.process === undefined) {
      return new Worker(this.#options.url, { type: "module" });
    }
    const child = new ChildProcessWorker(this.#options.url, this.#options.process);
    const exit = child.closed.then(() => {
      this.#exits.delete(exit);
    });
    this.#exits.add(exit);
    return child;
  }

  #settle(answer: Answer): void {
    const pending = this.#pending.get(answer.id);
    if (pending === undefined) return;
    this.#pending.delete(answer.id);
    clearTimeout(pending.timer);
    pending.resolve(answer);
    const option = this.#options.idleMs;
    if (this.#pending.size === 0 && option !== undefined) {
      const idleMs = typeof option === "function" ? option() : option;
      this.#idleTimer = setTimeout(() => {
        this.#idleTimer = undefined;
        if (this.#pending.size > 0) return;
        this.#terminate();
      }, idleMs);
      // An idle worker must not keep a process alive that has nothing else to do.
      Deno.unrefTimer(this.#idleTimer);
    }
  }
}
