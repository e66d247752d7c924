/**
 * A capped buffer that keeps the end of a text stream: where an upstream's stderr goes, so a
 * failure reason can quote its last lines however much the process wrote.
 * @module
 */

/**
 * Keeps the last `capacity` characters of everything appended. Appending is amortised O(chunk)
 * and memory stays below twice the capacity, so a 100 MB flood costs nothing but CPU.
 *
 * @example
 * ```ts
 * import { TailBuffer } from "./tail_buffer.ts";
 * import assert from "node:assert/strict";
 * const tail = new TailBuffer({ capacity: 8 });
 * tail.append("hello ");
 * tail.append("world\n");
 * assert.equal(tail.text(), "o world\n");
 * ```
 */
export class TailBuffer {
  readonly #capacity: number;
  #text = "";
  #total = 0;

  /** @param options.capacity Characters kept. @default 65536 */
  constructor(options: { capacity?: number } = {}) {
    this.#capacity = options.capacity ?? 65_536;
  }

  /** Adds text at the end, dropping the oldest text beyond the capacity. */
  append(chunk: string): void {
    this.#total += chunk.length;
    if (chunk.length >= this.#capacity) {
      this.#text = chunk.slice(chunk.length - this.#capacity);
      return;
    }
    this.#text += chunk;
    if (this.#text.length > this.#capacity * 2) {
      this.#text = this.#text.slice(this.#text.length - this.#capacity);
    }
  }

  /** The kept text: at most `capacity` characters, the newest ones. */
  text(): string {
    return this.#text.length > this.#capacity
      ? this.#text.slice(this.#text.length - this.#capacity)
      : this.#text;
  }

  /** Characters appended since creation, kept or not. */
  get totalChars(): number {
    return this.#total;
  }

  /**
   * The last non-empty lines, for a one-glance failure reason.
   * @param options.lines Lines kept. @default 10
   * @param options.maxChars Characters kept, counted from the end. @default 2000
   */
  lastLines(options: { lines?: number; maxChars?: number } = {}): string {
    const lines = this.text().split("\n").map((line) => line.trimEnd()).filter((l) => l !== "");
    const kept = lines.slice(-(options.lines ?? 10)).join("\n");
    const maxChars = options.maxChars ?? 2000;
    return kept.length > maxChars ? `…${kept.slice(kept.length - maxChars)}` : kept;
  }
}
