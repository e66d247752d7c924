/**
 * A stdio upstream's stdout cut into JSON-RPC lines as the chunks arrive (the protocol's one
 * `LineFramer`: bounded in size, an over-long line kept only by its two ends, to answer its
 * request), handed over in order with the SDK's own message handling.
 * @module
 */

import { LineFramer, type OversizedLine } from "../../protocol/line_framer.ts";

export type { OversizedLine } from "../../protocol/line_framer.ts";

/**
 * The child's stdout cut into lines as chunks arrive: a line is at most `max` characters (a
 * longer one is kept only by its ends, to answer its request); each goes to `onLine`, or to
 * `onOversized`, which say whether the SDK was handed a message.
 */
export class StdoutLines {
  readonly #max: number;
  readonly #onLine: (line: string) => boolean;
  readonly #onOversized: (line: OversizedLine, max: number) => boolean;
  readonly #framer: LineFramer;
  /** Lines waiting their turn behind one handed to the SDK; null when none waits. */
  #waiting: (string | OversizedLine)[] | null = null;
  #idle: (() => void) | undefined;

  constructor(
    max: number,
    onLine: (line: string) => boolean,
    onOversized: (line: OversizedLine, max: number) => boolean,
  ) {
    this.#max = max;
    this.#onLine = onLine;
    this.#onOversized = onOversized;
    this.#framer = new LineFramer((line) => this.#take(line), {
      maxLineLength: max,
      onOversized: (line) => this.#take(line),
    });
  }

  /** Takes one chunk read from stdout; it is not kept past this call. */
  add(chunk: Uint8Array): void {
    this.#framer.push(chunk);
  }

  /** Resolves once no line waits for its turn. */
  drained(): Promise<void> {
    if (this.#waiting === null) return Promise.resolve();
    return new Promise((resolve) => (this.#idle = resolve));
  }

  #take(line: string | OversizedLine): void {
    if (this.#waiting !== null) this.#waiting.push(line);
    else if (this.#deliver(line)) this.#wait();
  }

  #deliver(line: string | OversizedLine): boolean {
    return typeof line === "string" ? this.#onLine(line) : this.#onOversized(line, this.#max);
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
