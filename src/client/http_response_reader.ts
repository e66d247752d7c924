/**
 * The client half of HTTP/1.1 that the CLI needs, over a connection it opened itself: one
 * request written in one write, and its answer read as a status, headers and a body delivered
 * as it arrives (by `Content-Length`, chunked, or to the connection's end). `fetch` does all of
 * this too, but its first request in a fresh process costs the CLI about as much again as the
 * whole `deno run` (it builds an HTTP client and its connection pool first); a few writes and
 * reads on a unix socket cost next to nothing.
 * @module
 */

import { concatBytes } from "../protocol/bytes.ts";

/** Largest header block of an answer accepted. */
const MAX_HEAD_BYTES = 64 * 1024;

/** The request bytes of `method path` with `headers` and an optional JSON body. */
export function requestBytes(
  method: string,
  path: string,
  headers: Record<string, string>,
  body: string | null,
): Uint8Array {
  const encoder = new TextEncoder();
  const payload = body === null ? null : encoder.encode(body);
  let head = `${method} ${path} HTTP/1.1\r\n`;
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
  if (payload !== null) {
    head += `Content-Type: application/json\r\nContent-Length: ${payload.length}\r\n`;
  }
  head += "Connection: close\r\n\r\n";
  const bytes = encoder.encode(head);
  return payload === null ? bytes : concatBytes([bytes, payload]);
}

/** An answer's status and headers, and its body as it arrives. */
export interface HttpAnswer {
  status: number;
  /** Header names in lower case. */
  headers: Map<string, string>;
  /** The body's bytes, chunk by chunk, ending when the body does. */
  body: AsyncIterable<Uint8Array>;
}

/** Reads from a connection, starting with bytes already read. */
class ConnInput {
  readonly #conn: Deno.Conn;
  #buffered: Uint8Array;
  readonly #chunk = new Uint8Array(64 * 1024);

  constructor(conn: Deno.Conn) {
    this.#conn = conn;
    this.#buffered = new Uint8Array(0);
  }

  /** What is buffered, taken; or the next read (null at the connection's end). */
  async next(): Promise<Uint8Array | null> {
    if (this.#buffered.length > 0) {
      const out = this.#buffered;
      this.#buffered = new Uint8Array(0);
      return out;
    }
    const n = await this.#conn.read(this.#chunk);
    return n === null ? null : this.#chunk.slice(0, n);
  }

  /** Reads until `buffered` holds `n` bytes; false when the connection ends first. */
  async fill(n: number): Promise<boolean> {
    if (this.#buffered.length >= n) return true;
    const parts = [this.#buffered];
    let total = this.#buffered.length;
    let ended = false;
    while (total < n) {
      const read = await this.#conn.read(this.#chunk);
      if (read === null) {
        ended = true;
        break;
      }
      parts.push(this.#chunk.slice(0, read));
      total += read;
    }
    this.#buffered = concatBytes(parts);
    return !ended;
  }

  /** The first `n` buffered bytes, taken (after a successful {@linkcode fill}). */
  take(n: number): Uint8Array {
    const out = this.#buffered.subarray(0, n);
    this.#buffered = this.#buffered.subarray(n);
    return out;
  }

  /** The index just past the next CRLF (or CRLFCRLF), reading more as needed; -1 at the end. */
  async find(pattern: "\r\n" | "\r\n\r\n", limit: number): Promise<number> {
    for (let from = 0;;) {
      const at = indexOf(this.#buffered, pattern, from);
      if (at >= 0) return at + pattern.length;
      if (this.#buffered.length > limit) {
        throw new Error("the gateway's answer has too long a header");
      }
      from = Math.max(0, this.#buffered.length - pattern.length + 1);
      if (!await this.fill(this.#buffered.length + 1)) return -1;
    }
  }
}

function indexOf(bytes: Uint8Array, pattern: string, from: number): number {
  const last = bytes.length - pattern.length;
  outer: for (let i = from; i <= last; i++) {
    for (let j = 0; j < pattern.length; j++) {
      if (bytes[i + j] !== pattern.charCodeAt(j)) continue outer;
    }
    return i;
  }
  return -1;
}

/** Reads the answer to the request written on `conn`. */
export async function readAnswer(conn: Deno.Conn): Promise<HttpAnswer> {
  const input = new ConnInput(conn);
  const end = await input.find("\r\n\r\n", MAX_HEAD_BYTES);
  if (end < 0) throw new Error("the gateway closed the connection before answering");
  const head = new TextDecoder().decode(input.take(end));
  const [statusLine = "", ...lines] = head.split("\r\n");
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1];
  if (status === undefined) throw new Error(`the answer is not HTTP: "${statusLine.slice(0, 80)}"`);
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) {
      headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
  }
  const chunked = /\bchunked\b/i.test(headers.get("transfer-encoding") ?? "");
  const length = headers.has("content-length") ? Number(headers.get("content-length")) : null;
  return {
    status: Number(status),
    headers,
    body: chunked
      ? chunkedBody(input)
      : length !== null && Number.isFinite(length)
      ? sizedBody(input, length)
      : untilEnd(input),
  };
}

async function* sizedBody(input: ConnInput, length: number): AsyncGenerator<Uint8Array> {
  for (let left = length; left > 0;) {
    const chunk = await input.next();
    if (chunk === null) throw new Error("the gateway closed the connection mid-answer");
    const part = chunk.length > left ? chunk.subarray(0, left) : chunk;
    left -= part.length;
    yield part;
  }
}

async function* untilEnd(input: ConnInput): AsyncGenerator<Uint8Array> {
  for (let chunk = await input.next(); chunk !== null; chunk = await input.next()) yield chunk;
}

async function* chunkedBody(input: ConnInput): AsyncGenerator<Uint8Array> {
  for (;;) {
    const lineEnd = await input.find("\r\n", 1024);
    if (lineEnd < 0) throw new Error("the gateway closed the connection mid-answer");
    const size = parseInt(new TextDecoder().decode(input.take(lineEnd)), 16);
    if (!Number.isFinite(size)) throw new Error("the gateway's answer has a malformed chunk");
    if (size === 0) return; // trailers, if any, are not read: the connection closes
    if (!await input.fill(size + 2)) {
      throw new Error("the gateway closed the connection mid-answer");
    }
    yield input.take(size).slice();
    input.take(2);
  }
}
