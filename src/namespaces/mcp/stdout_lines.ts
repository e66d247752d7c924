/**
 * A stdio upstream's stdout cut into JSON-RPC lines, as the chunks arrive: bounded in size (an
 * over-long line keeps only its two ends, to answer its request), and in order with the SDK's
 * own message handling.
 * @module
 */

import { concatBytes } from "../../protocol/bytes.ts";

/**
 * The child's stdout cut into lines as chunks arrive: a line is at most `max` bytes (a longer
 * one is kept only by its ends, to answer its request); each goes to `onLine`, or to
 * `onOversized`, which say whether the SDK was handed a message.
 */
export class StdoutLines {
  readonly #max: number;
  readonly #onLine: (bytes: Uint8Array) => boolean;
  readonly #onOversized: (line: OversizedLine, max: number) => boolean;
  #parts: Uint8Array[] = [];
  #size = 0;
  #dropping: OversizedLine | null = null;
  /** Lines waiting their turn behind one handed to the SDK; null when none waits. */
  #waiting: (Uint8Array | OversizedLine)[] | null = null;
  #idle: (() => void) | undefined;

  constructor(
    max: number,
    onLine: (bytes: Uint8Array) => boolean,
    onOversized: (line: OversizedLine, max: number) => boolean,
  ) {
    this.#max = max;
    this.#onLine = onLine;
    this.#onOversized = onOversized;
  }

  /** Takes one chunk read from stdout; it is not kept past this call. */
  add(chunk: Uint8Array): void {
    let start = 0;
    while (start <= chunk.length) {
      const newline = chunk.indexOf(10, start);
      const end = newline === -1 ? chunk.length : newline;
      const piece = chunk.subarray(start, end);
      if (!this.#dropping && this.#size + piece.length > this.#max) {
        this.#dropping = new OversizedLine(concatBytes(this.#parts));
        this.#parts = [];
        this.#size = 0;
      }
      if (this.#dropping) this.#dropping.add(piece);
      else if (piece.length > 0) {
        // A piece of an unfinished line outlives this chunk: copied (Buffer#slice would not).
        this.#parts.push(newline === -1 ? new Uint8Array(piece) : piece);
        this.#size += piece.length;
      }
      if (newline === -1) break;
      const line = this.#dropping ?? concatBytes(this.#parts);
      this.#dropping = null;
      this.#parts = [];
      this.#size = 0;
      start = newline + 1;
      if (this.#waiting !== null) this.#waiting.push(line);
      else if (this.#deliver(line)) this.#wait();
    }
  }

  /** Resolves once no line waits for its turn. */
  drained(): Promise<void> {
    if (this.#waiting === null) return Promise.resolve();
    return new Promise((resolve) => (this.#idle = resolve));
  }

  #deliver(line: Uint8Array | OversizedLine): boolean {
    return line instanceof OversizedLine ? this.#onOversized(line, this.#max) : this.#onLine(line);
  }

  /**
   * The SDK runs notification handlers one microtask later but responses at once; a final
   * progress notification would otherwise lose the race with its response. So the line after
   * one handed to the SDK waits a microtask. (Direct tool calls handle their progress and
   * answers in order, at once.)
   */
  #wait(): void {
    this.#waiting ??= [];
    queueMicrotask(() => {
      const waiting = this.#waiting!;
      while (waiting.length > 0) {
        if (this.#deliver(waiting.shift()!)) {
          this.#wait();
          return;
        }
      }
      this.#waiting = null;
      this.#idle?.();
      this.#idle = undefined;
    });
  }
}

/** Keeps the two ends of a line too long to hold, to find the id of the reply it carried. */
export class OversizedLine {
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
