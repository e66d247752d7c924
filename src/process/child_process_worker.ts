/**
 * A Web Worker entry run in a child process instead of a Worker (issue 12): the same
 * `postMessage` / `onmessage` surface, so `WorkerClient` drives either, but when it is
 * terminated or exits the memory goes back to the system — a Worker's heap inside the server is
 * not returned after `terminate()`. Messages are JSON lines on the child's stdin and stdout.
 * @module
 */

import { describeExit } from "./describe_exit.ts";
import { signalProcessGroup } from "./terminate_process_group.ts";

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
 * Read access to the entry's directory, which the host imports dynamically — unless the flags
 * already grant all reads (a second `--allow-read=…` would narrow a bare `--allow-read`).
 */
function entryReadFlag(url: URL, permissions: string[]): string[] {
  const all = ["--allow-read", "--allow-all", "-A"];
  if (url.protocol !== "file:" || permissions.some((flag) => all.includes(flag))) return [];
  return [`--allow-read=${decodeURIComponent(new URL(".", url).pathname)}`];
}

/**
 * Settings that shrink a TypeScript-heavy child (the checker, the signature extraction)
 * without slowing its checks measurably (issue 12, measured on the checker: about 150 → 90 MB
 * private after warm-up): a 1 MB young generation (V8's default grows it to 16 MB per
 * semi-space), two malloc arenas instead of one per thread, and big allocations (the parse of
 * TypeScript's own 9 MB source at import) on `mmap`, so freeing them gives the pages back.
 * `--optimize-for-size` keeps V8 from letting the old generation grow with the garbage of
 * each check: without it the checker went from 87 to 234 MB private over 600 new scripts,
 * with it it stays near 100 MB, and a new script's typed exec was no slower (≈ 21 vs 26 ms).
 */
export const LEAN_PROCESS: Pick<ChildProcessWorkerOptions, "v8Flags" | "env"> = {
  v8Flags: ["--max-semi-space-size=1", "--optimize-for-size"],
  env: { MALLOC_ARENA_MAX: "2", MALLOC_MMAP_THRESHOLD_: "131072" },
};

/** Stderr kept to explain a crash. */
const STDERR_TAIL_CHARS = 2_000;

/** The part of a Worker that `WorkerClient` uses. */
export interface WorkerLike {
  onmessage: ((event: MessageEvent) => void) | null;
  onerror: ((event: ErrorEvent) => void) | null;
  onmessageerror: ((event: MessageEvent) => void) | null;
  postMessage(message: unknown): void;
  terminate(): void;
}

/**
 * Runs `url` (a worker entry) with `child_worker_main.ts` in a detached child process. An exit
 * that `terminate()` did not ask for is reported through `onerror` with the exit status and the
 * end of stderr; an unreadable line through `onmessageerror`.
 */
export class ChildProcessWorker implements WorkerLike {
  onmessage: ((event: MessageEvent) => void) | null = null;
  onerror: ((event: ErrorEvent) => void) | null = null;
  onmessageerror: ((event: MessageEvent) => void) | null = null;
  /** Process id, also its process group (the entry may spawn `deno types`, `deno check`). */
  readonly pid: number;
  /** Settles once the process has exited and its pipes are drained; never rejects. */
  readonly closed: Promise<void>;
  #child: Deno.ChildProcess;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #terminated = false;
  #stderrTail = "";
  #encoder = new TextEncoder();

  constructor(url: URL, options: ChildProcessWorkerOptions) {
    const args = [
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
    ];
    this.#child = new Deno.Command(Deno.execPath(), {
      args,
      ...(options.env === undefined ? {} : { env: options.env }),
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      detached: true,
    }).spawn();
    this.pid = this.#child.pid;
    this.#writer = this.#child.stdin.getWriter();
    this.#writer.closed.catch(() => {}); // a write to a dead child is reported by its exit
    const stdout = this.#readStdout().catch(() => {});
    const stderr = this.#readStderr().catch(() => {});
    this.closed = this.#child.status.then(async (status) => {
      signalProcessGroup(this.pid, "SIGKILL"); // what the entry left behind in its group
      await Promise.all([stdout, stderr]);
      if (this.#terminated) return;
      this.#terminated = true;
      const tail = this.#stderrTail.trim();
      const message = `its process ${describeExit(status)}${tail === "" ? "" : `: ${tail}`}`;
      this.onerror?.(new ErrorEvent("error", { message }));
    });
  }

  /** Sends `message` as one JSON line; dropped once the process has ended. */
  postMessage(message: unknown): void {
    if (this.#terminated) return;
    this.#writer.write(this.#encoder.encode(`${JSON.stringify(message)}\n`)).catch(() => {});
  }

  /** Kills the process group; no event follows. */
  terminate(): void {
    if (this.#terminated) return;
    this.#terminated = true;
    this.#writer.close().catch(() => {});
    signalProcessGroup(this.pid, "SIGKILL");
  }

  async #readStdout(): Promise<void> {
    const decoder = new TextDecoder();
    let buffered = "";
    for await (const chunk of this.#child.stdout) {
      buffered += decoder.decode(chunk, { stream: true });
      let end = buffered.indexOf("\n");
      while (end >= 0) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 1);
        if (line !== "" && !this.#terminated) this.#deliver(line);
        end = buffered.indexOf("\n");
      }
    }
  }

  #deliver(line: string): void {
    let data: unknown;
    try {
      data = JSON.parse(line);
    } catch {
      this.onmessageerror?.(new MessageEvent("messageerror", { data: line.slice(0, 200) }));
      return;
    }
    this.onmessage?.(new MessageEvent("message", { data }));
  }

  async #readStderr(): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of this.#child.stderr) {
      this.#stderrTail = (this.#stderrTail + decoder.decode(chunk, { stream: true }))
        .slice(-STDERR_TAIL_CHARS);
    }
  }
}
