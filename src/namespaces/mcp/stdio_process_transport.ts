/**
 * The stdio transport for upstream MCP servers: one child process in its own process group,
 * newline-delimited JSON-RPC on stdin/stdout, stderr drained into a capped tail.
 * @module
 */

import { type ChildProcess, spawn } from "node:child_process";
import { constants as osConstants } from "node:os";
import {
  signalProcessGroup,
  terminateProcessGroup,
} from "../../process/terminate_process_group.ts";
import { type JSONRPCMessage, parseMessage, type Transport } from "./mcp_sdk.ts";
import { TailBuffer } from "./tail_buffer.ts";
import { StdioToolCalls } from "./stdio_tool_calls.ts";
import { type OversizedLine, StdoutLines } from "./stdout_lines.ts";
import { LineFramer } from "../../protocol/line_framer.ts";

/** What to run and how to watch it. */
export interface StdioProcessOptions {
  command: string;
  args: string[];
  /** The child's whole environment (nothing is inherited beyond it). */
  env: Record<string, string>;
  cwd?: string;
  /** Longest stdout line accepted as one message; longer lines are dropped. @default 16 MiB */
  maxMessageBytes?: number;
  /** Where stderr is kept; pass one to read it after the process is gone. @default a 64 KiB tail */
  stderr?: TailBuffer;
  /** Receives stderr lines (at most 20 a second, each cut at 500 characters). */
  onStderrLine?: (line: string) => void;
  /** Wait after closing stdin, and again after SIGTERM, before the next step. @default 2000 */
  killGraceMs?: number;
  /** Told the child's pid (= process group) once spawned, so a later server can reap it. */
  onSpawn?: (pid: number) => void;
}

const STDERR_LINES_PER_SECOND = 20;
const STDERR_LINE_CHARS = 500;

/**
 * An SDK {@linkcode Transport} over a child process. It replaces the SDK's
 * `StdioClientTransport` because the gateway needs what that one does not offer: the child runs
 * in its own process group so `close()` leaves no grandchildren behind, stdout lines have a size
 * cap, stderr is drained continuously into a bounded tail (a server that floods stderr never
 * stalls), and the exit status is kept to explain a crash.
 *
 * The child is spawned with `node:child_process` rather than `Deno.Command`: its pipes are read
 * and written without the web streams' per-chunk promise machinery, which cost a fast tool call
 * about a quarter of the client's time on the pipe.
 */
export class StdioProcessTransport implements Transport {
  /** Set by the SDK's `Protocol.connect`. */
  onclose?: () => void;
  /** Set by the SDK's `Protocol.connect`. */
  onerror?: (error: Error) => void;
  /** Set by the SDK's `Protocol.connect`. */
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  /**
   * `tools/call` requests that bypass the SDK's per-message validation; their answers are
   * taken off stdout before the SDK sees a line.
   */
  readonly toolCalls: StdioToolCalls = new StdioToolCalls((message, onFailed) =>
    this.sendLine(message, onFailed)
  );

  readonly #options: StdioProcessOptions;
  readonly #stderr: TailBuffer;
  #child: ChildProcess | undefined;
  #pid: number | undefined;
  #exited: Promise<Deno.CommandStatus> | undefined;
  #status: Deno.CommandStatus | undefined;
  #finished: Promise<void> | undefined;
  #closing: Promise<void> | undefined;
  /** Settles once the child is spawned or could not be. */
  #starting: Promise<void> | undefined;
  readonly #stdout: StdoutLines;

  constructor(options: StdioProcessOptions) {
    this.#options = options;
    this.#stderr = options.stderr ?? new TailBuffer();
    // Lines are handled in event callbacks: a handler's throw would be an uncaught error of the
    // whole gateway, so it is reported and the next line read as usual.
    const guarded = (handle: () => boolean) => {
      try {
        return handle();
      } catch (error) {
        this.onerror?.(
          new Error(`Cannot handle a line on stdout of "${options.command}"`, { cause: error }),
        );
        return false;
      }
    };
    this.#stdout = new StdoutLines(
      options.maxMessageBytes ?? 16 * 1024 * 1024,
      (line) => guarded(() => this.#handleLine(line)),
      (line, max) => guarded(() => this.#rejectOversized(line, max)),
    );
  }

  /** Process id of the child (also its process group id), once started. */
  get pid(): number | undefined {
    return this.#pid;
  }

  /** How the child ended, once it has. */
  get exitStatus(): Deno.CommandStatus | undefined {
    return this.#status;
  }

  /** The kept end of the child's stderr. */
  get stderr(): TailBuffer {
    return this.#stderr;
  }

  /** Spawns the child; rejects when it cannot be spawned (missing command, bad cwd). */
  start(): Promise<void> {
    if (this.#child !== undefined) {
      return Promise.reject(new Error(`Cannot start "${this.#options.command}": already started`));
    }
    const cwd = this.#options.cwd;
    const cannotStart = (error: unknown) => {
      const code = (error as { code?: unknown } | null)?.code;
      const detail = error instanceof Deno.errors.NotFound || code === "ENOENT"
        ? (cwd !== undefined && !isDirectory(cwd)
          ? `its working directory "${cwd}" does not exist (fix "cwd")`
          : "command not found")
        : error instanceof Error
        ? error.message
        : String(error);
      return new Error(`Cannot start "${this.#options.command}": ${detail}`, { cause: error });
    };
    let child: ChildProcess;
    try {
      child = spawn(this.#options.command, this.#options.args, {
        // The whole environment: nothing of the gateway's own is inherited.
        env: this.#options.env,
        ...(cwd === undefined ? {} : { cwd }),
        stdio: ["pipe", "pipe", "pipe"],
        // setsid(): the child leads a new process group, so stop() can signal every descendant.
        detached: true,
      });
    } catch (error) {
      return Promise.reject(cannotStart(error));
    }
    this.#child = child;
    this.#starting = new Promise((resolve, reject) => {
      // A command that cannot be run is an "error" event before any "spawn".
      const failed = (error: Error) => reject(cannotStart(error));
      child.once("error", failed);
      child.once("spawn", () => {
        child.off("error", failed);
        this.#watch(child);
        resolve();
      });
    });
    return this.#starting;
  }

  /** Wires the spawned child's pipes and exit. */
  #watch(child: ChildProcess): void {
    const pid = child.pid!;
    this.#pid = pid;
    this.#options.onSpawn?.(pid);
    // Later errors (a failed kill, a broken pipe) are reported by send() and close(); an
    // "error" event without a listener would end the gateway.
    child.on("error", (error) => this.onerror?.(error));
    child.stdin!.on("error", () => {});
    child.stdout!.on("data", (chunk: Uint8Array) => this.#stdout.add(chunk));
    child.stdout!.on("error", (error: Error) => {
      this.onerror?.(
        new Error(`Cannot read stdout of "${this.#options.command}"`, { cause: error }),
      );
    });
    const stderrDone = this.#readStderr(child);
    this.#exited = new Promise((resolve) => {
      child.once("exit", (code, signal) => resolve(commandStatus(code, signal)));
    });
    // "close": the child has exited and its pipes have ended.
    const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
    this.#finished = (async () => {
      this.#status = await this.#exited!;
      // The leader is gone; anything left in its group is an orphan.
      signalProcessGroup(pid, "SIGKILL");
      await closed;
      await stderrDone;
      // Lines still waiting for their turn (after a message handed to the SDK) go first.
      await this.#stdout.drained();
      this.onclose?.();
      this.toolCalls.close();
    })();
  }

  /**
   * Writes one message as a line; rejects when the child's stdin is gone. Not `async`: the
   * write starts in the caller's turn, with no promise layer around it.
   */
  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => this.sendLine(message, reject, resolve));
  }

  /**
   * {@linkcode send} without a promise, for the tool-call path: `onFailed` hears why the message
   * could not be written, `onWritten` that it was.
   */
  sendLine(
    message: JSONRPCMessage,
    onFailed: (error: Error) => void,
    onWritten?: () => void,
  ): void {
    const stdin = this.#child?.stdin;
    if (
      stdin == null || this.#pid === undefined || this.#status !== undefined ||
      this.#closing !== undefined
    ) {
      onFailed(new Error(`Cannot send to "${this.#options.command}": the process is not running`));
      return;
    }
    let line: string;
    try {
      line = `${JSON.stringify(message)}\n`;
    } catch (error) {
      onFailed(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    // A string: the stream encodes it as UTF-8 itself, in one step with the write.
    stdin.write(line, (error) => {
      if (error) {
        onFailed(
          new Error(`Cannot send to "${this.#options.command}": ${error.message}`, {
            cause: error,
          }),
        );
      } else onWritten?.();
    });
  }

  /**
   * Ends the child: closes stdin, waits `killGraceMs`, sends SIGTERM to the group, waits again,
   * then SIGKILL. Resolves once the child is reaped and its pipes are drained; idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    // A close while the spawn is under way ends the child it brings, not nothing.
    await this.#starting?.catch(() => {});
    const child = this.#child;
    const pid = this.#pid;
    if (
      child === undefined || pid === undefined || this.#exited === undefined ||
      this.#finished === undefined
    ) return;
    const grace = this.#options.killGraceMs ?? 2000;
    // EOF once the writes queued before it are out (no wait: a child gone already never
    // confirms it); the wait for the exit is terminateProcessGroup's.
    child.stdin!.end();
    await terminateProcessGroup(pid, this.#exited, { exitWaitMs: grace, graceMs: grace });
    await this.#finished;
  }

  /**
   * A reply too large to accept still answers its request: the id is read from the line's
   * ends, and the caller gets an error naming the size at once instead of waiting for its
   * timeout. True when the SDK was handed a message.
   */
  #rejectOversized(line: OversizedLine, max: number): boolean {
    const message = `The reply of "${this.#options.command}" is ${line.length} bytes, over the ` +
      `gateway's limit of ${max} bytes for one message: ask the tool for less (a page, a filter)`;
    this.onerror?.(
      new Error(
        `Dropped a message from "${this.#options.command}": longer than ${max} bytes ` +
          `(${line.length} bytes)`,
      ),
    );
    const id = line.requestId();
    if (id === null) return false;
    const reply: JSONRPCMessage = { jsonrpc: "2.0", id, error: { code: -32603, message } };
    if (this.toolCalls.take(reply)) return false;
    this.onmessage?.(reply);
    return true;
  }

  /** Parses and delivers one line; true when the SDK was handed a message. */
  #handleLine(text: string): boolean {
    const line = text.trim();
    if (line === "") return false;
    let message: JSONRPCMessage;
    try {
      const value: unknown = JSON.parse(line);
      if (this.toolCalls.take(value)) return false;
      message = parseMessage(value);
    } catch {
      const preview = line.length > 200 ? `${line.slice(0, 200)}…` : line;
      this.onerror?.(
        new Error(
          `Ignored a line on stdout of "${this.#options.command}" that is not JSON-RPC: ${
            JSON.stringify(preview)
          }`,
        ),
      );
      return false;
    }
    this.onmessage?.(message);
    return true;
  }

  #readStderr(child: ChildProcess): Promise<void> {
    const decoder = new TextDecoder();
    const onLine = this.#options.onStderrLine;
    let windowStart = 0;
    let logged = 0;
    let skipped = 0;
    const log = (line: string) => {
      if (onLine === undefined || line.trim() === "") return;
      const now = Date.now();
      if (now - windowStart >= 1000) {
        if (skipped > 0) onLine(`(${skipped} stderr lines not logged)`);
        windowStart = now;
        logged = 0;
        skipped = 0;
      }
      if (logged >= STDERR_LINES_PER_SECOND) {
        skipped++;
        return;
      }
      logged++;
      onLine(line.length > STDERR_LINE_CHARS ? `${line.slice(0, STDERR_LINE_CHARS)}…` : line);
    };
    const stream = child.stderr!;
    // A line too long to keep is logged by its start.
    const lines = new LineFramer(log, {
      maxLineLength: STDERR_LINE_CHARS * 4,
      onOversized: (line) => log(line.head),
    });
    stream.on("data", (chunk: Uint8Array) => {
      this.#stderr.append(decoder.decode(chunk, { stream: true }));
      if (onLine !== undefined) lines.push(chunk);
    });
    return new Promise((resolve) => {
      stream.once("error", (error: Error) => {
        this.onerror?.(
          new Error(`Cannot read stderr of "${this.#options.command}"`, { cause: error }),
        );
        resolve();
      });
      stream.once("close", () => {
        lines.end();
        if (skipped > 0) onLine?.(`(${skipped} stderr lines not logged)`);
        resolve();
      });
    });
  }
}

/** The variables a stdio server inherits from the gateway (as the SDK's stdio client passes). */
const INHERITED_VARIABLES = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];

/**
 * The gateway's environment a stdio server gets before its own `env`: `HOME`, `LOGNAME`,
 * `PATH`, `SHELL`, `TERM` and `USER` (shell function exports left out), and nothing else.
 */
export function inheritedEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of INHERITED_VARIABLES) {
    const value = Deno.env.get(key);
    if (value !== undefined && !value.startsWith("()")) env[key] = value;
  }
  return env;
}

/** Whether `path` is a directory (false when it is missing or unreadable). */
function isDirectory(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}

/** A `Deno.CommandStatus` from node's exit event (a signal's code is 128 + its number). */
function commandStatus(code: number | null, signal: NodeJS.Signals | null): Deno.CommandStatus {
  if (signal !== null) {
    const number = (osConstants.signals as Record<string, number>)[signal] ?? 0;
    return { success: false, code: 128 + number, signal: signal as Deno.Signal };
  }
  return { success: code === 0, code: code ?? 1, signal: null };
}
