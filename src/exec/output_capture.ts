/**
 * Bounded capture of a run's stdout or stderr: keeps the head up to a cap, counts the rest,
 * so a 100 MB flood costs the gateway no more than the cap.
 * @module
 */

import { concatBytes } from "../protocol/bytes.ts";

/** Longest exit code text accepted after an end marker's nonce (`-2147483648`). */
const MAX_CODE_CHARS = 11;
/** Size of a capture's first read buffer: a trivial run's whole output fits. */
const FIRST_READ_BYTES = 4 * 1024;
/** Size of the read buffer once a read has filled the first one (a run writing a lot). */
const READ_BYTES = 64 * 1024;

/** Options of {@linkcode OutputCapture}. */
export interface OutputCaptureOptions {
  /** Told each kept piece of text as it arrives (streamed output). */
  onText?: (text: string) => void;
  /**
   * The runner's end marker up to its exit code (see `protocol/run_end_marker.ts`): output
   * ends there — it is neither kept nor counted, nor is anything after it — and
   * {@linkcode OutputCapture.ended} resolves with the code written after it.
   */
  endMarker?: string;
}

/** Collects one stream's bytes up to `capBytes`, drains and counts everything past it. */
export class OutputCapture {
  #chunks: Uint8Array[] = [];
  #kept = 0;
  #total = 0;
  readonly #cap: number;
  readonly #decoder = new TextDecoder();
  readonly #onText: ((text: string) => void) | undefined;
  readonly #marker: Uint8Array | null;
  /** Bytes at the end of the last chunk that may be the start of the end marker. */
  #held: Uint8Array | null = null;
  #endCode: number | null = null;
  #settleEnd!: (code: number | null) => void;
  /**
   * Resolves with the exit code of the runner's end marker once it has been read, or with
   * null when the stream ended without it.
   */
  readonly ended: Promise<number | null>;

  constructor(capBytes: number, options: OutputCaptureOptions = {}) {
    this.#cap = capBytes;
    this.#onText = options.onText;
    this.#marker = options.endMarker ? new TextEncoder().encode(options.endMarker) : null;
    this.ended = new Promise((resolve) => (this.#settleEnd = resolve));
  }

  /**
   * Adds a chunk (copied: the caller may reuse it); bytes beyond the cap are counted only.
   * With an end marker, the chunk is first searched for it: bytes before it are output, the
   * marker and what follows are not.
   */
  push(chunk: Uint8Array): void {
    if (this.#endCode !== null) return;
    if (this.#marker === null) {
      this.#keep(chunk);
      return;
    }
    const data = this.#held === null ? chunk : concatBytes([this.#held, chunk]);
    this.#held = null;
    const marker = this.#marker;
    for (let from = 0;;) {
      const at = data.indexOf(marker[0]!, from);
      if (at < 0) break;
      const end = indexAfterMarker(data, at, marker);
      if (end === -1) {
        from = at + 1;
        continue;
      }
      const newline = end === null ? -1 : data.indexOf(10, end);
      if (end === null || (newline < 0 && data.length - end <= MAX_CODE_CHARS)) {
        // The marker may go on in the next chunk: hold these bytes back until it comes.
        this.#keep(data.subarray(0, at));
        this.#held = data.slice(at);
        return;
      }
      const codeText = newline < 0 ? "" : new TextDecoder().decode(data.subarray(end, newline));
      if (!/^-?\d{1,10}$/.test(codeText)) {
        from = at + 1;
        continue;
      }
      this.#keep(data.subarray(0, at));
      this.#endCode = Number(codeText);
      this.#settleEnd(this.#endCode);
      return;
    }
    this.#keep(data);
  }

  #keep(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
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
   * the cap allocates nothing per chunk, so the gateway's memory stays flat. The buffer
   * starts small, since most runs write a few lines, and grows once a read fills it (two
   * 64 KiB buffers per run were most of what a trivial run allocated in the server).
   */
  async drain(stream: ReadableStream<Uint8Array>): Promise<void> {
    const reader = stream.getReader({ mode: "byob" });
    let buffer = new Uint8Array(FIRST_READ_BYTES);
    let ended = false;
    try {
      for (;;) {
        const { value, done } = await reader.read(buffer);
        if (done || value === undefined) break;
        this.push(value);
        buffer = value.length === value.buffer.byteLength && value.length < READ_BYTES
          ? new Uint8Array(READ_BYTES)
          : new Uint8Array(value.buffer);
      }
      ended = true;
    } finally {
      // A stream read to its end has nothing left to hand on: releasing its lock would only
      // build the TypeError its spec rejects the reader's `closed` with (a stack capture per
      // stream, two per run). A failed read releases it.
      if (!ended) reader.releaseLock();
      // Held bytes that never became a marker were output after all.
      if (this.#held !== null && this.#endCode === null) this.#keep(this.#held);
      this.#held = null;
      this.#settleEnd(null);
    }
  }
}

/**
 * Where the bytes after `marker` start when `data` holds it at `at`; null when `data` ends
 * with a start of it; -1 when the bytes at `at` are not the marker.
 */
function indexAfterMarker(data: Uint8Array, at: number, marker: Uint8Array): number | null {
  const available = Math.min(marker.length, data.length - at);
  for (let i = 1; i < available; i++) if (data[at + i] !== marker[i]) return -1;
  return available < marker.length ? null : at + marker.length;
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
 * total bytes and where the rest is. `text` is what the capture kept (the history
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
