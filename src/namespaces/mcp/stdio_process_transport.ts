/**
 * The stdio transport for upstream MCP servers: one child process in its own process group,
 * newline-delimited JSON-RPC on stdin/stdout, stderr drained into a capped tail.
 * @module
 */

import {
  signalProcessGroup,
  terminateProcessGroup,
} from "../../process/terminate_process_group.ts";
import { type JSONRPCMessage, JSONRPCMessageSchema, type Transport } from "./mcp_sdk.ts";
import { TailBuffer } from "./tail_buffer.ts";
import { StdioToolCalls } from "./stdio_tool_calls.ts";
import { concatBytes } from "../../protocol/bytes.ts";

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
  readonly toolCalls: StdioToolCalls = new StdioToolCalls((message) => this.send(message));

  readonly #options: StdioProcessOptions;
  readonly #stderr: TailBuffer;
  #child: Deno.ChildProcess | undefined;
  #writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  #status: Deno.CommandStatus | undefined;
  #finished: Promise<void> | undefined;
  #closing: Promise<void> | undefined;
  readonly #encoder = new TextEncoder();
  readonly #decoder = new TextDecoder();

  constructor(options: StdioProcessOptions) {
    this.#options = options;
    this.#stderr = options.stderr ?? new TailBuffer();
  }

  /** Process id of the child (also its process group id), once started. */
  get pid(): number | undefined {
    return this.#child?.pid;
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
    let child: Deno.ChildProcess;
    try {
      child = new Deno.Command(this.#options.command, {
        args: this.#options.args,
        env: this.#options.env,
        clearEnv: true,
        ...(this.#options.cwd === undefined ? {} : { cwd: this.#options.cwd }),
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
        // setsid(): the child leads a new process group, so stop() can signal every descendant.
        detached: true,
      }).spawn();
    } catch (error) {
      const detail = error instanceof Deno.errors.NotFound
        ? "command not found"
        : error instanceof Error
        ? error.message
        : String(error);
      return Promise.reject(
        new Error(`Cannot start "${this.#options.command}": ${detail}`, { cause: error }),
      );
    }
    this.#child = child;
    this.#options.onSpawn?.(child.pid);
    this.#writer = child.stdin.getWriter();
    // The writer's own rejection is reported by send(); keep it from being "unhandled".
    this.#writer.closed.catch(() => {});
    const stdoutDone = this.#readStdout(child.stdout);
    const stderrDone = this.#readStderr(child.stderr);
    this.#finished = (async () => {
      this.#status = await child.status;
      // The leader is gone; anything left in its group is an orphan.
      signalProcessGroup(child.pid, "SIGKILL");
      await Promise.all([stdoutDone, stderrDone]);
      this.onclose?.();
      this.toolCalls.close();
    })();
    return Promise.resolve();
  }

  /**
   * Writes one message as a line; rejects when the child's stdin is gone. Not `async`: the
   * write starts in the caller's turn, with no promise layer around it (issue 12).
   */
  send(message: JSONRPCMessage): Promise<void> {
    if (this.#writer === undefined || this.#status !== undefined || this.#closing !== undefined) {
      return Promise.reject(
        new Error(`Cannot send to "${this.#options.command}": the process is not running`),
      );
    }
    let line: Uint8Array;
    try {
      line = this.#encoder.encode(`${JSON.stringify(message)}\n`);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#writer.write(line);
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
    const child = this.#child;
    if (child === undefined || this.#finished === undefined) return;
    const grace = this.#options.killGraceMs ?? 2000;
    await this.#writer?.close().catch(() => {});
    await terminateProcessGroup(child.pid, child.status, { exitWaitMs: grace, graceMs: grace });
    await this.#finished;
  }

  async #readStdout(stream: ReadableStream<Uint8Array>): Promise<void> {
    const max = this.#options.maxMessageBytes ?? 16 * 1024 * 1024;
    let parts: Uint8Array[] = [];
    let size = 0;
    let dropping: OversizedLine | null = null;
    // One buffer for every read (a BYOB reader): a default reader allocates a chunk per read and
    // costs a fast call more CPU than the rest of its way through the stream (issue 12). A piece
    // that must outlive the next read (a line not finished yet) is copied out.
    const reader = stream.getReader({ mode: "byob" });
    let buffer = new ArrayBuffer(64 * 1024);
    try {
      for (;;) {
        const { value: chunk, done } = await reader.read(new Uint8Array(buffer));
        if (done || chunk === undefined) break;
        buffer = chunk.buffer as ArrayBuffer;
        let start = 0;
        while (start <= chunk.length) {
          const newline = chunk.indexOf(10, start);
          const end = newline === -1 ? chunk.length : newline;
          const piece = chunk.subarray(start, end);
          if (!dropping && size + piece.length > max) {
            dropping = new OversizedLine(concatBytes(parts));
            parts = [];
            size = 0;
          }
          if (dropping) dropping.add(piece);
          else if (piece.length > 0) {
            parts.push(newline === -1 ? piece.slice() : piece);
            size += piece.length;
          }
          if (newline === -1) break;
          const toSdk = dropping
            ? this.#rejectOversized(dropping, max)
            : this.#handleLine(concatBytes(parts));
          dropping = null;
          parts = [];
          size = 0;
          start = newline + 1;
          // The SDK runs notification handlers one microtask later but responses at once; a
          // final progress notification would otherwise lose the race with its response.
          // (Direct tool calls handle their progress and answers in order, at once.)
          if (toSdk) await Promise.resolve();
        }
      }
    } catch (error) {
      this.onerror?.(
        new Error(`Cannot read stdout of "${this.#options.command}"`, { cause: error }),
      );
    }
  }

  /**
   * A reply too large to accept still answers its request: the id is read from the line's
   * ends, and the caller gets an error naming the size at once instead of waiting for its
   * timeout (issue 9, item 10). True when the SDK was handed a message.
   */
  #rejectOversized(line: OversizedLine, max: number): boolean {
    const message = `The reply of "${this.#options.command}" is ${line.size} bytes, over the ` +
      `gateway's limit of ${max} bytes for one message: ask the tool for less (a page, a filter)`;
    this.onerror?.(
      new Error(
        `Dropped a message from "${this.#options.command}": longer than ${max} bytes ` +
          `(${line.size} bytes)`,
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
  #handleLine(bytes: Uint8Array): boolean {
    const line = this.#decoder.decode(bytes).trim();
    if (line === "") return false;
    let message: JSONRPCMessage;
    try {
      const value: unknown = JSON.parse(line);
      if (this.toolCalls.take(value)) return false;
      message = JSONRPCMessageSchema.parse(value);
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

  async #readStderr(stream: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    const onLine = this.#options.onStderrLine;
    let partial = "";
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
    try {
      for await (const chunk of stream) {
        const text = decoder.decode(chunk, { stream: true });
        this.#stderr.append(text);
        if (onLine === undefined) continue;
        const lines = (partial + text).split("\n");
        partial = lines.pop() ?? "";
        if (partial.length > STDERR_LINE_CHARS * 4) partial = partial.slice(0, STDERR_LINE_CHARS);
        for (const line of lines) log(line);
      }
      log(partial);
      if (skipped > 0) onLine?.(`(${skipped} stderr lines not logged)`);
    } catch (error) {
      this.onerror?.(
        new Error(`Cannot read stderr of "${this.#options.command}"`, { cause: error }),
      );
    }
  }
}

/** Keeps the two ends of a line too long to hold, to find the id of the reply it carried. */
class OversizedLine {
  static readonly END_BYTES = 512;
  #head: Uint8Array;
  #tail: Uint8Array = new Uint8Array(0);
  size: number;

  constructor(start: Uint8Array) {
    this.#head = start.subarray(0, OversizedLine.END_BYTES);
    this.#tail = start.subarray(-OversizedLine.END_BYTES);
    this.size = start.length;
  }

  add(piece: Uint8Array): void {
    if (piece.length === 0) return;
    this.size += piece.length;
    if (this.#head.length < OversizedLine.END_BYTES) {
      this.#head = concatBytes([this.#head, piece])
        .subarray(0, OversizedLine.END_BYTES);
    }
    const last = piece.subarray(-OversizedLine.END_BYTES);
    const joined = concatBytes([this.#tail, last]);
    this.#tail = joined.subarray(-OversizedLine.END_BYTES);
  }

  /**
   * The top-level JSON-RPC id, when the line opens with it (`{"jsonrpc":"2.0","id":3,…`) or
   * closes with it (`…,"id":3}`, as the SDK writes replies); an `"id"` inside the payload is
   * never taken for it.
   */
  requestId(): string | number | null {
    const decoder = new TextDecoder();
    const id = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
    const opening = new RegExp(
      String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*` + id,
    );
    const closing = new RegExp(String.raw`"id"\s*:\s*` + id + String.raw`\s*\}\s*$`);
    const match = opening.exec(decoder.decode(this.#head)) ??
      closing.exec(decoder.decode(this.#tail));
    return match ? JSON.parse(match[1]!) as string | number : null;
  }
}
