/**
 * A `Transport` over a byte stream: newline-delimited JSON on a unix socket (a runner's channel,
 * a tool host's link), on a process's own stdin and stdout, or on a child's pipes. Reading
 * splits each chunk where it stands (`LineFramer`): a message costs one decode, one slice and
 * one parse, no promise per line. Writing keeps lines whole and in order: a line sent while
 * the stream is idle is written at once by the write op itself (Deno polls it eagerly), so a
 * message costs one write and no extra turn; lines sent meanwhile are joined into the next
 * write.
 * @module
 */

import { LineFramer, type OversizedLine } from "./line_framer.ts";
import { messageOf } from "./message_of.ts";
import {
  InboxBuffer,
  type Transport,
  type TransportEvents,
  type WireMessage,
} from "./transport.ts";

/** A stream read into a buffer (`Deno.Conn`, `Deno.stdin`). */
export interface ByteReader {
  read(buffer: Uint8Array): Promise<number | null>;
}

/** A stream written from a buffer, possibly in parts (`Deno.Conn`, `Deno.stdout`). */
export interface ByteWriter {
  write(bytes: Uint8Array): Promise<number>;
}

/** The two directions of a stream, and how to end them. */
export interface ByteStreams {
  /** Where messages are read from. */
  readable: ByteReader | ReadableStream<Uint8Array>;
  /** Where messages are written to. */
  writable: ByteWriter | WritableStream<Uint8Array>;
  /** Ends both directions (closes the connection); told once. */
  close?: () => void;
  /** Lets the stream keep the process alive, or not (`Deno.Conn.ref`/`unref`). */
  ref?: () => void;
  unref?: () => void;
}

/** Settings of a {@linkcode StreamTransport}. */
export interface StreamTransportOptions {
  /**
   * Longest message accepted from the other side, in UTF-16 code units, and longest sent, in
   * bytes. @default {16 MiB}
   */
  maxMessageBytes?: number;
  /**
   * What a message over the limit from the other side does: closes the transport (a peer that
   * sends one is broken or hostile), or is dropped (after `onOversized` heard of it).
   * @default {"close"}
   */
  oversized?: "close" | "drop";
  /** Told about each message over the limit (its two ends, to answer its request). */
  onOversized?: (line: OversizedLine) => void;
  /** Told about each line that is not a JSON object (dropped). */
  onDropped?: (why: string) => void;
  /** Serialises each message (masking secrets, say). @default {JSON.stringify} */
  stringify?: (message: WireMessage) => string;
  /**
   * Starts each message with a newline too, ending any partial line something else wrote to
   * the same stream (a module's `Deno.stdout.write` on a child's stdout). @default {false}
   */
  guardLines?: boolean;
  /**
   * Bytes read at once: a smaller read hands a burst of requests over in smaller parts, so
   * fewer are in flight together. @default {65536}
   */
  readBufferBytes?: number;
  /** Names the wire in the error a message too large to send throws. @default {"this wire"} */
  wireName?: string;
}

const ENCODER = new TextEncoder();
/** Characters joined into one write at most from lines sent while a write was under way. */
const WRITE_BATCH_LENGTH = 64 * 1024;
const DEFAULT_MAX_MESSAGE = 16 * 1024 * 1024;

/**
 * The reason a transport closes with when the other side sent a message over the limit: the
 * other side is still there, so whoever owns it (a child's transport) ends it and says so.
 */
export const OVER_SIZE_LIMIT = "a message over the size limit";

/** A transport over byte streams; see the module doc. */
export class StreamTransport implements Transport {
  readonly #streams: ByteStreams;
  readonly #inbox = new InboxBuffer();
  readonly #framer: LineFramer;
  readonly #stringify: (message: WireMessage) => string;
  readonly #guard: boolean;
  readonly #wireName: string;
  #oversized: "close" | "drop";
  readonly #onDropped: ((why: string) => void) | undefined;
  readonly #write: (bytes: Uint8Array) => Promise<number>;
  #maxMessageBytes: number;
  #writing = false;
  #queued: string[] = [];
  #idle: (() => void)[] = [];
  #closed = false;
  #streamClosed = false;
  /** Resolves once the read loop has ended (the stream's end, or the transport closed). */
  readonly readDone: Promise<void>;

  constructor(streams: ByteStreams, options: StreamTransportOptions = {}) {
    this.#streams = streams;
    this.#maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE;
    this.#stringify = options.stringify ?? JSON.stringify;
    this.#guard = options.guardLines === true;
    this.#wireName = options.wireName ?? "this wire";
    this.#oversized = options.oversized ?? "close";
    this.#onDropped = options.onDropped;
    const onOversized = options.onOversized;
    this.#framer = new LineFramer((line) => this.#line(line), {
      maxLineLength: this.#maxMessageBytes,
      onOversized: (line) => {
        onOversized?.(line);
        if (this.#oversized === "close") this.close(OVER_SIZE_LIMIT);
      },
    });
    const writable = streams.writable;
    if ("getWriter" in writable) {
      const writer = writable.getWriter();
      writer.closed.catch(() => {}); // a write to a gone reader is reported by the write
      this.#write = (bytes) => writer.write(bytes).then(() => bytes.length);
      const close = streams.close;
      this.#streams = {
        ...streams,
        close: () => {
          writer.close().catch(() => {});
          close?.();
        },
      };
    } else this.#write = (bytes) => writable.write(bytes);
    const readable = streams.readable;
    this.readDone = "getReader" in readable
      ? this.#readStream(readable)
      : this.#readFrom(readable, options.readBufferBytes ?? 64 * 1024);
  }

  /** Wraps a connection (`Deno.connect`, an accepted socket). */
  static fromConn(conn: Deno.Conn, options: StreamTransportOptions = {}): StreamTransport {
    return new StreamTransport({
      readable: conn,
      writable: conn,
      close: () => conn.close(),
      ref: () => conn.ref(),
      unref: () => conn.unref(),
    }, options);
  }

  /** The limit on messages either way; a handshake raises it once the other side is known. */
  get maxMessageBytes(): number {
    return this.#maxMessageBytes;
  }

  set maxMessageBytes(bytes: number) {
    this.#maxMessageBytes = bytes;
    this.#framer.maxLineLength = bytes;
  }

  /** What a message over the limit does; a handshake may relax it once the other side is known. */
  get oversized(): "close" | "drop" {
    return this.#oversized;
  }

  set oversized(policy: "close" | "drop") {
    this.#oversized = policy;
  }

  /** True once closed (by either side). */
  get closed(): boolean {
    return this.#closed;
  }

  start(events: TransportEvents): void {
    this.#inbox.start(events);
  }

  /** Stops delivering messages until the next {@linkcode start} (they wait, in order). */
  hold(): void {
    this.#inbox.hold();
  }

  send(message: WireMessage): void {
    const text = this.#stringify(message);
    if (typeof text !== "string") throw new TypeError("The message cannot be sent as JSON");
    const line = this.#guard ? `\n${text}\n` : `${text}\n`;
    // A character is at least one byte, and at most three.
    if (line.length > this.#maxMessageBytes) this.#tooLarge(message, ENCODER.encode(line).length);
    if (this.#closed) return;
    if (this.#writing) {
      if (line.length * 3 > this.#maxMessageBytes) {
        const bytes = ENCODER.encode(line).length;
        if (bytes > this.#maxMessageBytes) this.#tooLarge(message, bytes);
      }
      this.#queued.push(line);
      return;
    }
    const bytes = ENCODER.encode(line);
    if (bytes.length > this.#maxMessageBytes) this.#tooLarge(message, bytes.length);
    this.#writing = true;
    // Written by the write op itself when the stream takes the whole line (the usual case);
    // the loop (and its promises) only when it takes part of it or lines queued up.
    this.#write(bytes).then((written) => {
      if (written === bytes.length && this.#queued.length === 0) this.#done();
      else this.#drain(bytes.subarray(written));
    }, (error: unknown) => this.#writeFailed(error));
  }

  /** Lets the stream keep the process alive (the default), or not. */
  ref(): void {
    this.#streams.ref?.();
  }

  /** See {@linkcode ref}. */
  unref(): void {
    this.#streams.unref?.();
  }

  close(reason = "closed"): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#queued = [];
    this.#endStream();
    this.#inbox.close(reason);
    if (!this.#writing) this.#wake();
  }

  flushed(): Promise<void> {
    if (!this.#writing) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #tooLarge(message: WireMessage, bytes: number): never {
    const method = typeof message.method === "string" ? `"${message.method}" ` : "";
    throw new RangeError(
      `The ${method}message is ${bytes} bytes, over ${this.#wireName}'s limit of ` +
        `${this.#maxMessageBytes} bytes: send less at once`,
    );
  }

  #line(line: string): void {
    if (this.#closed) return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.#onDropped?.("a line that is not JSON");
      return;
    }
    if (typeof message !== "object" || message === null || Array.isArray(message)) {
      this.#onDropped?.("a line that is not a JSON object");
      return;
    }
    this.#inbox.message(message as WireMessage);
  }

  async #readFrom(reader: ByteReader, size: number): Promise<void> {
    const buffer = new Uint8Array(size);
    let reason = "closed by the other side";
    try {
      for (;;) {
        const n = await reader.read(buffer);
        if (n === null) break;
        this.#framer.push(buffer.subarray(0, n));
        if (this.#framer.dropping) this.#overLimit();
        if (this.#closed) return;
      }
    } catch (error) {
      if (this.#closed) return;
      reason = `the connection failed: ${messageOf(error)}`;
    }
    this.#framer.end();
    this.close(reason);
  }

  async #readStream(stream: ReadableStream<Uint8Array>): Promise<void> {
    const reader = stream.getReader();
    let reason = "closed by the other side";
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        this.#framer.push(value);
        if (this.#framer.dropping) this.#overLimit();
        if (this.#closed) break;
      }
    } catch (error) {
      if (!this.#closed) reason = `the stream failed: ${messageOf(error)}`;
    }
    if (this.#closed) {
      // The other side may still write: read on and drop it, so it never blocks on a pipe.
      await reader.cancel().catch(() => {});
      return;
    }
    this.#framer.end();
    this.close(reason);
  }

  /** A message over the limit is being read: closing needs no more of it. */
  #overLimit(): void {
    if (this.#oversized !== "close") return;
    this.#onDropped?.(`${OVER_SIZE_LIMIT} (closing)`);
    this.close(OVER_SIZE_LIMIT);
  }

  #endStream(): void {
    if (this.#streamClosed) return;
    this.#streamClosed = true;
    try {
      this.#streams.close?.();
    } catch {
      // closed by the other side already
    }
  }

  #writeFailed(error: unknown): void {
    this.#queued = [];
    this.#done();
    this.close(`the connection failed: ${messageOf(error)}`);
  }

  #done(): void {
    this.#writing = false;
    this.#wake();
  }

  #wake(): void {
    const idle = this.#idle;
    this.#idle = [];
    for (const resolve of idle) resolve();
  }

  /** Lines sent meanwhile, joined up to a batch's worth (a burst is not copied whole). */
  #next(): string | undefined {
    if (this.#queued.length === 0) return undefined;
    let length = 0;
    let count = 0;
    while (count < this.#queued.length && length < WRITE_BATCH_LENGTH) {
      length += this.#queued[count]!.length;
      count++;
    }
    return count === 1 ? this.#queued.shift() : this.#queued.splice(0, count).join("");
  }

  /** Writes the rest of a line the stream took part of, then the lines queued meanwhile. */
  async #drain(rest: Uint8Array): Promise<void> {
    try {
      let bytes: Uint8Array | undefined = rest;
      while (bytes !== undefined) {
        for (let at = 0; at < bytes.length;) at += await this.#write(bytes.subarray(at));
        if (this.#closed) break;
        const text = this.#next();
        bytes = text === undefined ? undefined : ENCODER.encode(text);
      }
      this.#done();
    } catch (error) {
      this.#writeFailed(error);
    }
  }
}
