/**
 * The newline-delimited JSON spoken between the gateway and a tool host over the host's
 * stdin/stdout (and, for the shared host's Workers, over their own socket: `worker_links.ts`).
 * Shared by both sides; imports only the chunk decoder, so the child loads nothing more.
 * @module
 */

import { ChunkDecoder } from "../../protocol/chunk_decoder.ts";

/** Parent → child: call an export with one argument (absent = call it with none). */
export interface CallMessage {
  type: "call";
  id: number;
  tool: string;
  args?: unknown;
}

/** Parent → child: abort call `id`'s signal (the call still answers; late answers are dropped). */
export interface CancelMessage {
  type: "cancel";
  id: number;
}

/** Everything the parent sends. */
export type HostRequest = CallMessage | CancelMessage;

/** An error as it crosses the pipe. */
export interface WireError {
  message: string;
  name?: string;
  stack?: string;
}

/** Child → parent: the module was imported; `exports` names its function exports. */
export interface ReadyMessage {
  type: "ready";
  exports: string[];
}

/** Child → parent: importing the module failed; the child exits right after. */
export interface LoadErrorMessage {
  type: "load_error";
  error: WireError;
}

/** Child → parent: the outcome of one call; `value` is absent when the tool returned undefined. */
export type ResultMessage =
  | { type: "result"; id: number; ok: true; value?: unknown }
  | { type: "result"; id: number; ok: false; error: WireError };

/** Everything the child sends. */
export type HostResponse = ReadyMessage | LoadErrorMessage | ResultMessage;

/**
 * Frames one message. The leading newline ends any partial line a module wrote to stdout
 * directly (`Deno.stdout.write` without a newline), so such noise never corrupts a message.
 */
export function encodeMessage(message: HostRequest | HostResponse | { type: string }): string {
  return `\n${JSON.stringify(message)}\n`;
}

/** Parses one line from the child; undefined for noise (non-JSON or not a known message). */
export function parseResponse(line: string): HostResponse | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null || !("type" in value)) return undefined;
  switch (value.type) {
    case "ready":
      return "exports" in value && Array.isArray(value.exports) ? value as ReadyMessage : undefined;
    case "load_error":
      return "error" in value && isWireError(value.error) ? value as LoadErrorMessage : undefined;
    case "result":
      if (!("id" in value) || typeof value.id !== "number" || !("ok" in value)) return undefined;
      if (value.ok === true) return value as ResultMessage;
      return value.ok === false && "error" in value && isWireError(value.error)
        ? value as ResultMessage
        : undefined;
    default:
      return undefined;
  }
}

/** Parses one line from the parent; undefined when it is not a request. */
export function parseRequest(line: string): HostRequest | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null || !("type" in value)) return undefined;
  if (!("id" in value) || typeof value.id !== "number") return undefined;
  if (value.type === "cancel") return value as CancelMessage;
  if (value.type === "call" && "tool" in value && typeof value.tool === "string") {
    return value as CallMessage;
  }
  return undefined;
}

/** Characters {@linkcode SerialWriter} joins into one write at most (past one line). */
const WRITE_BATCH_LENGTH = 64 * 1024;

/**
 * Writes lines to a connection whole and in order (a socket write may take part of a buffer,
 * and writes started while one is pending must wait): the first line goes out at once, lines
 * written meanwhile go out together after it. `onError` hears a failed write (the peer is gone).
 */
export class SerialWriter {
  readonly #conn: { write(bytes: Uint8Array): Promise<number> };
  readonly #onError: (error: unknown) => void;
  readonly #encoder = new TextEncoder();
  #queued: string[] = [];
  #writing = false;
  /** Told when the writes in progress are done (see {@linkcode SerialWriter.idle}). */
  #idle: (() => void)[] = [];

  constructor(
    conn: { write(bytes: Uint8Array): Promise<number> },
    onError: (error: unknown) => void,
  ) {
    this.#conn = conn;
    this.#onError = onError;
  }

  /**
   * Queues `text` for writing after everything written before it. On an idle connection the
   * write op itself writes it (Deno polls the op at once): the usual call or result costs one
   * write and one promise, and the loop below runs only when the socket took part of it or
   * lines queued up meanwhile (issue 12).
   */
  write(text: string): void {
    if (this.#writing) {
      this.#queued.push(text);
      return;
    }
    this.#writing = true;
    const bytes = this.#encoder.encode(text);
    this.#conn.write(bytes).then((written) => {
      if (written === bytes.length && this.#queued.length === 0) this.#done();
      else this.#drain(bytes.subarray(written)).catch(this.#onError);
    }, (error: unknown) => {
      this.#queued = [];
      this.#done();
      this.#onError(error);
    });
  }

  /**
   * Resolves once everything written so far is out (or failed): a process about to exit
   * waits for its last line.
   */
  idle(): Promise<void> {
    if (!this.#writing) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #done(): void {
    this.#writing = false;
    for (const resolve of this.#idle.splice(0)) resolve();
  }

  /** Lines written meanwhile, joined up to a batch's worth (a burst is not copied whole). */
  #next(): string | undefined {
    if (this.#queued.length === 0) return undefined;
    let length = 0;
    let count = 0;
    while (count < this.#queued.length && length < WRITE_BATCH_LENGTH) {
      length += this.#queued[count]!.length;
      count++;
    }
    return this.#queued.splice(0, count).join("");
  }

  /** Writes the rest of a line the socket took part of, then the lines queued meanwhile. */
  async #drain(rest: Uint8Array): Promise<void> {
    try {
      let bytes: Uint8Array | undefined = rest;
      while (bytes !== undefined) {
        for (let at = 0; at < bytes.length;) at += await this.#conn.write(bytes.subarray(at));
        const text = this.#next();
        bytes = text === undefined ? undefined : this.#encoder.encode(text);
      }
    } finally {
      this.#queued = [];
      this.#done();
    }
  }
}

/** Turns anything thrown into a {@linkcode WireError}. */
export function toWireError(thrown: unknown): WireError {
  if (thrown instanceof Error) {
    const error: WireError = { message: thrown.message, name: thrown.name };
    if (thrown.stack !== undefined) error.stack = thrown.stack;
    return error;
  }
  return { message: String(thrown) };
}

/** Whether `value` has the shape of a {@linkcode WireError}. */
export function isWireError(value: unknown): value is WireError {
  return typeof value === "object" && value !== null && "message" in value &&
    typeof value.message === "string";
}

/** Settings of {@linkcode readLines}. */
export interface ReadLinesOptions {
  /** Longest line kept, in UTF-16 code units; longer lines are dropped and reported. */
  maxLineLength: number;
  /** Told about each dropped over-long line. */
  onOversized?: (length: number) => void;
  /**
   * Bytes read at once by {@linkcode readLinesFrom}: a smaller read hands a burst of requests
   * over in smaller parts, so fewer are in flight together. @default {65536}
   */
  bufferBytes?: number;
}

/**
 * Feeds each non-empty line of `stream` (UTF-8) to `onLine` until the stream ends. Memory stays
 * bounded by `maxLineLength` whatever the peer writes.
 */
export async function readLines(
  stream: ReadableStream<Uint8Array>,
  onLine: (line: string) => void,
  options: ReadLinesOptions,
): Promise<void> {
  const lines = new LineSplitter(onLine, options);
  // A reader rather than `for await`: one promise less per chunk (issue 12).
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      lines.push(value);
    }
  } catch (error) {
    // As `for await` would: a failing consumer cancels the stream rather than leave it unread.
    await reader.cancel(error).catch(() => {});
    throw error;
  } finally {
    reader.releaseLock();
  }
  lines.end();
}

/**
 * {@linkcode readLines} straight from a reader such as `Deno.stdin`: one read op per chunk,
 * without a stream's queue and promises in between (issue 12: a tool host relays every call).
 */
export async function readLinesFrom(
  reader: { read(buffer: Uint8Array): Promise<number | null> },
  onLine: (line: string) => void,
  options: ReadLinesOptions,
): Promise<void> {
  const lines = new LineSplitter(onLine, options);
  const buffer = new Uint8Array(options.bufferBytes ?? 64 * 1024);
  for (;;) {
    const n = await reader.read(buffer);
    if (n === null) break;
    lines.push(buffer.subarray(0, n));
  }
  lines.end();
}

/** Splits UTF-8 chunks into lines, dropping (and reporting) lines over the limit. */
class LineSplitter {
  readonly #decoder = new ChunkDecoder();
  readonly #onLine: (line: string) => void;
  readonly #options: ReadLinesOptions;
  #buffer = "";
  /** > 0 while skipping the rest of an over-long line. */
  #dropped = 0;

  constructor(onLine: (line: string) => void, options: ReadLinesOptions) {
    this.#onLine = onLine;
    this.#options = options;
  }

  push(chunk: Uint8Array): void {
    const text = this.#decoder.decode(chunk);
    let start = 0;
    for (let newline = text.indexOf("\n"); newline >= 0; newline = text.indexOf("\n", start)) {
      this.#take(text.slice(start, newline), true);
      start = newline + 1;
    }
    this.#take(text.slice(start), false);
  }

  end(): void {
    this.#take(this.#decoder.end(), true);
  }

  #take(piece: string, ended: boolean): void {
    if (this.#dropped > 0) {
      this.#dropped += piece.length;
      if (ended) {
        this.#options.onOversized?.(this.#dropped);
        this.#dropped = 0;
      }
      return;
    }
    if (ended) {
      const whole = this.#buffer === "" ? piece : this.#buffer + piece;
      this.#buffer = "";
      const line = whole.endsWith("\r") ? whole.slice(0, -1) : whole;
      if (line.trim() !== "") this.#onLine(line);
      return;
    }
    this.#buffer += piece;
    if (this.#buffer.length > this.#options.maxLineLength) {
      this.#dropped = this.#buffer.length;
      this.#buffer = "";
    }
  }
}
