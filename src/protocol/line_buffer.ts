/**
 * Splits decoded text arriving in chunks into newline-delimited lines, in time linear in the
 * text: only each new chunk is searched for newlines, and the pieces of a line longer than a
 * chunk are kept apart and joined once when its newline comes. (Joining each chunk onto the
 * partial line and searching the whole of it again made one 15 MB line cost a second of CPU.)
 * Both ends of a run's channel read with it.
 * @module
 */

/**
 * Newline-delimited lines from text chunks; blank lines are skipped.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LineBuffer } from "./line_buffer.ts";
 *
 * const lines: string[] = [];
 * const buffer = new LineBuffer((line) => lines.push(line));
 * buffer.push('{"a":');
 * buffer.push('1}\n\n{"b":2}\n{"c"');
 * assert.deepEqual(lines, ['{"a":1}', '{"b":2}']);
 * assert.equal(buffer.pendingLength, 4);
 * ```
 */
export class LineBuffer {
  readonly #onLine: (line: string) => void;
  /** The pieces of the line not ended yet, in order. */
  #pieces: string[] = [];
  #pendingLength = 0;

  constructor(onLine: (line: string) => void) {
    this.#onLine = onLine;
  }

  /** Characters of the line not ended yet (held until its newline comes). */
  get pendingLength(): number {
    return this.#pendingLength;
  }

  /** Hands every line `text` completes to the callback, in order, and keeps the rest. */
  push(text: string): void {
    let start = 0;
    for (let newline = text.indexOf("\n"); newline >= 0; newline = text.indexOf("\n", start)) {
      let line = text.slice(start, newline);
      start = newline + 1;
      if (this.#pieces.length > 0) {
        this.#pieces.push(line);
        line = this.#pieces.join("");
        this.#pieces = [];
        this.#pendingLength = 0;
      }
      if (line.trim() !== "") this.#onLine(line);
    }
    if (start < text.length) {
      const rest = start === 0 ? text : text.slice(start);
      this.#pieces.push(rest);
      this.#pendingLength += rest.length;
    }
  }
}
