/**
 * Bounded capture of a run's stdout or stderr: keeps the head up to a cap, counts the rest,
 * so a 100 MB flood costs the gateway no more than the cap (RELIABILITY SBX-09).
 * @module
 */

/** Collects one stream's bytes up to `capBytes`, drains and counts everything past it. */
export class OutputCapture {
  #chunks: Uint8Array[] = [];
  #kept = 0;
  #total = 0;
  readonly #cap: number;
  readonly #decoder = new TextDecoder();
  readonly #onText: ((text: string) => void) | undefined;

  constructor(capBytes: number, options: { onText?: (text: string) => void } = {}) {
    this.#cap = capBytes;
    this.#onText = options.onText;
  }

  /** Adds a chunk (copied: the caller may reuse it); bytes beyond the cap are counted only. */
  push(chunk: Uint8Array): void {
    this.#total += chunk.length;
    const room = this.#cap - this.#kept;
    if (room > 0) {
      const part = chunk.slice(0, Math.min(room, chunk.length));
      this.#chunks.push(part);
      this.#kept += part.length;
      if (this.#onText) this.#onText(this.#decoder.decode(part, { stream: true }));
    }
  }

  /** Bytes seen in total, kept or not. */
  get totalBytes(): number {
    return this.#total;
  }

  /** The kept head decoded as UTF-8 (a cut multi-byte character becomes U+FFFD). */
  text(): string {
    const all = new Uint8Array(this.#kept);
    let at = 0;
    for (const c of this.#chunks) {
      all.set(c, at);
      at += c.length;
    }
    return new TextDecoder().decode(all);
  }

  /**
   * Reads a byte stream to its end into this capture, through one reused buffer: a flood past
   * the cap allocates nothing per chunk, so the gateway's memory stays flat (SBX-09).
   */
  async drain(stream: ReadableStream<Uint8Array>): Promise<void> {
    const reader = stream.getReader({ mode: "byob" });
    let buffer = new Uint8Array(64 * 1024);
    try {
      for (;;) {
        const { value, done } = await reader.read(buffer);
        if (done || value === undefined) break;
        this.push(value);
        buffer = new Uint8Array(value.buffer);
      }
    } finally {
      reader.releaseLock();
    }
  }
}

/** Cuts text to at most `maxBytes` of UTF-8 and reports whether it did. */
export function headBytes(text: string, maxBytes: number): { text: string; cut: boolean } {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= maxBytes) return { text, cut: false };
  const head = new TextDecoder().decode(bytes.subarray(0, maxBytes)).replace(/\uFFFD$/, "");
  return { text: head, cut: true };
}

/**
 * Cuts one stream to what the caller gets: its head, after a one-line notice naming kept and
 * total bytes and where the rest is (SPEC §8). `text` is what the capture kept (the history
 * copy); `total` counts every byte the run wrote.
 */
export function capForCaller(
  stream: "stdout" | "stderr",
  text: string,
  options: { total: number | undefined; maxBytes: number; runId: string },
): { text: string; truncated: boolean; total: number } {
  const encoder = new TextEncoder();
  const captured = encoder.encode(text).length;
  const total = options.total ?? captured;
  const cut = headBytes(text, options.maxBytes);
  if (!cut.cut && total <= captured) return { text, truncated: false, total };
  const kept = encoder.encode(cut.text).length;
  const where = total > captured
    ? `history keeps the first ${captured} bytes: gateway history show ${options.runId}`
    : `full text: gateway history show ${options.runId}`;
  return {
    text: `[gateway: ${stream} truncated: ${kept} of ${total} bytes kept; ${where}]\n${cut.text}`,
    truncated: true,
    total,
  };
}
