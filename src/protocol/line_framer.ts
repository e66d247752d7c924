/**
 * The one line framer of every newline-delimited wire the gateway reads (a runner's channel, a
 * tool host's socket, a child's stdout, a stdio upstream's stdout, the CLI's `/rpc` answer):
 * bytes or text in, lines out, in time linear in the input. Only each new chunk is searched for
 * newlines; the pieces of a line longer than a chunk are kept apart and joined once when its
 * newline comes (joining each chunk onto the partial line and searching the whole of it again
 * made one 15 MB line cost a second of CPU). A line over the limit is not kept: only its two
 * ends are, so the reader can still answer the request it carried.
 * @module
 */

import { ChunkDecoder } from "./chunk_decoder.ts";

/** Characters kept of each end of a line too long to hold. */
const END_CHARS = 512;

/**
 * A line longer than the framer's limit: its length and its two ends (enough to find the id of
 * the JSON-RPC message it carried).
 */
export class OversizedLine {
  /** The line's length in UTF-16 code units (what was read of it, when the stream ended). */
  length: number;
  /** Its first characters. */
  head: string;
  /** Its last characters. */
  tail: string;

  constructor(start: string) {
    this.length = start.length;
    this.head = start.slice(0, END_CHARS);
    this.tail = start.slice(-END_CHARS);
  }

  /** Takes the next piece of the line. */
  add(piece: string): void {
    if (piece.length === 0) return;
    this.length += piece.length;
    if (this.head.length < END_CHARS) this.head = (this.head + piece).slice(0, END_CHARS);
    this.tail = (this.tail + piece.slice(-END_CHARS)).slice(-END_CHARS);
  }

  /**
   * The top-level JSON-RPC id, when the line opens with it (`{"jsonrpc":"2.0","id":3,…`) or
   * closes with it (`…,"id":3}`, as most writers put it last); an `"id"` inside the payload is
   * never taken for it.
   */
  requestId(): string | number | null {
    const id = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
    const opening = new RegExp(
      String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*` + id,
    );
    const closing = new RegExp(String.raw`"id"\s*:\s*` + id + String.raw`\s*\}\s*$`);
    const match = opening.exec(this.head) ?? closing.exec(this.tail);
    return match ? JSON.parse(match[1]!) as string | number : null;
  }
}

/** Settings of a {@linkcode LineFramer}. */
export interface LineFramerOptions {
  /**
   * Longest line kept, in UTF-16 code units; a longer one goes to `onOversized` instead.
   * @default {Infinity}
   */
  maxLineLength?: number;
  /** Told about each line over the limit, once it has ended. */
  onOversized?: (line: OversizedLine) => void;
}

/**
 * Newline-delimited lines from chunks of UTF-8 bytes (or text); blank lines are skipped and a
 * line's trailing `\r` is dropped.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LineFramer } from "./line_framer.ts";
 *
 * const lines: string[] = [];
 * const framer = new LineFramer((line) => lines.push(line));
 * framer.pushText('{"a":');
 * framer.push(new TextEncoder().encode('1}\r\n\n{"b":2}\n{"c"'));
 * assert.deepEqual(lines, ['{"a":1}', '{"b":2}']);
 * assert.equal(framer.pendingLength, 4);
 * ```
 */
export class LineFramer {
  readonly #onLine: (line: string) => void;
  #max: number;
  readonly #onOversized: ((line: OversizedLine) => void) | undefined;
  readonly #decoder = new ChunkDecoder();
  /** The pieces of the line not ended yet, in order. */
  #pieces: string[] = [];
  #pendingLength = 0;
  /** The line being skipped because it is over the limit. */
  #dropping: OversizedLine | null = null;

  constructor(onLine: (line: string) => void, options: LineFramerOptions = {}) {
    this.#onLine = onLine;
    this.#max = options.maxLineLength ?? Infinity;
    this.#onOversized = options.onOversized;
  }

  /** The longest line kept; a handshake may raise it once the other side is known. */
  get maxLineLength(): number {
    return this.#max;
  }

  set maxLineLength(length: number) {
    this.#max = length;
  }

  /** Characters of the line not ended yet (held until its newline comes). */
  get pendingLength(): number {
    return this.#dropping?.length ?? this.#pendingLength;
  }

  /** True while a line over the limit is being skipped. */
  get dropping(): boolean {
    return this.#dropping !== null;
  }

  /** Decodes `chunk` (a character split over two chunks comes out whole) and frames it. */
  push(chunk: Uint8Array): void {
    this.pushText(this.#decoder.decode(chunk));
  }

  /** Hands every line `text` completes to the callback, in order, and keeps the rest. */
  pushText(text: string): void {
    let start = 0;
    for (let newline = text.indexOf("\n"); newline >= 0; newline = text.indexOf("\n", start)) {
      const piece = text.slice(start, newline);
      start = newline + 1;
      this.#ended(piece);
    }
    if (start < text.length) this.#hold(start === 0 ? text : text.slice(start));
  }

  /** The stream ended: a last line without its newline is handed over too. */
  end(): void {
    const rest = this.#decoder.end();
    if (rest !== "") this.#hold(rest);
    if (this.#dropping !== null || this.#pieces.length > 0) this.#ended("");
  }

  #hold(piece: string): void {
    if (this.#dropping !== null) {
      this.#dropping.add(piece);
      return;
    }
    this.#pieces.push(piece);
    this.#pendingLength += piece.length;
    if (this.#pendingLength > this.#max) {
      this.#dropping = new OversizedLine(this.#pieces.join(""));
      this.#pieces = [];
      this.#pendingLength = 0;
    }
  }

  #ended(piece: string): void {
    const dropping = this.#dropping;
    if (dropping !== null) {
      dropping.add(piece);
      this.#dropping = null;
      this.#onOversized?.(dropping);
      return;
    }
    let line = piece;
    if (this.#pieces.length > 0) {
      this.#pieces.push(piece);
      line = this.#pieces.join("");
      this.#pieces = [];
      this.#pendingLength = 0;
    }
    if (line.length > this.#max) {
      this.#onOversized?.(new OversizedLine(line));
      return;
    }
    if (line.charCodeAt(line.length - 1) === 13) line = line.slice(0, -1);
    if (line.trim() !== "") this.#onLine(line);
  }
}
