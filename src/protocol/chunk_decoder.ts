/**
 * UTF-8 decoding of the chunks a newline-delimited JSON reader gets, without `TextDecoder`'s
 * streaming mode where it is not needed: a chunk that ends with a newline ends on a character
 * boundary, so it decodes on its own, by the plain path, which costs about half of a streaming
 * `decode(chunk, { stream: true })` (its options are converted and its state kept on every
 * call). Every tool call's line passes through one of these in each process it crosses.
 * @module
 */

const NEWLINE = 0x0a;

/**
 * Decodes a byte stream chunk by chunk, like one `TextDecoder` in streaming mode: a character
 * split over two chunks comes out whole with the second.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ChunkDecoder } from "./chunk_decoder.ts";
 *
 * const decoder = new ChunkDecoder();
 * const bytes = new TextEncoder().encode("é\n");
 * assert.equal(decoder.decode(bytes.subarray(0, 1)), "");
 * assert.equal(decoder.decode(bytes.subarray(1)), "é\n");
 * ```
 */
export class ChunkDecoder {
  readonly #whole = new TextDecoder("utf-8", { ignoreBOM: true });
  readonly #streaming = new TextDecoder("utf-8", { ignoreBOM: true });
  /** True while the streaming decoder may hold the start of a split character. */
  #split = false;

  /** The text of `chunk`, with any character begun in the chunks before it. */
  decode(chunk: Uint8Array): string {
    const endsLine = chunk.length > 0 && chunk[chunk.length - 1] === NEWLINE;
    if (!this.#split && endsLine) return this.#whole.decode(chunk);
    const text = this.#streaming.decode(chunk, { stream: true });
    this.#split = !endsLine;
    return text;
  }

  /** What is left at the end of the stream: an incomplete character as U+FFFD, else "". */
  end(): string {
    this.#split = false;
    return this.#streaming.decode();
  }
}
