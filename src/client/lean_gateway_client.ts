/**
 * The gateway's WebSocket JSON-RPC, spoken by hand over a plain TCP connection (RFC 6455, a
 * client's part only: masked text frames out; text, ping and close frames in). The CLI's
 * `gateway exec` fast path pays for every millisecond before it sends (issue 12): Deno's own
 * `WebSocket` takes 10–20 ms to open its first connection in a fresh process, a TCP connection
 * and one upgrade request about 1 ms. Same requests, answers and notifications as
 * {@linkcode GatewayClient}.
 * @module
 */

import { type PendingRequests, receiveRpcText, type ServerNotification } from "./rpc_answers.ts";
import { concatBytes, writeAll } from "../protocol/bytes.ts";

const WEBSOCKET_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
/** Largest header block of the upgrade answer accepted. */
const MAX_HEADER_BYTES = 16 * 1024;

const OPCODE_CONTINUATION = 0x0;
const OPCODE_TEXT = 0x1;
const OPCODE_CLOSE = 0x8;
const OPCODE_PING = 0x9;
const OPCODE_PONG = 0xa;

/** A connected client over one TCP connection. Close it when done; pending requests reject. */
export class LeanGatewayClient {
  readonly #conn: Deno.Conn;
  readonly #pending: PendingRequests = new Map();
  readonly #listeners = new Set<(n: ServerNotification) => void>();
  readonly #decoder = new TextDecoder("utf-8", { fatal: true });
  #nextId = 1;
  #closed = false;
  #writing: Promise<unknown> = Promise.resolve();

  private constructor(conn: Deno.Conn, rest: Uint8Array) {
    this.#conn = conn;
    this.#readFrames(rest).catch(() => undefined).finally(() => this.#end());
  }

  /**
   * Connects to `ws://host:port/ws` with the token and completes the upgrade; rejects when
   * the server cannot be reached or refuses (bad token, not a gateway) within `timeoutMs`.
   */
  static async connect(
    options: { host: string; port: number; token: string; timeoutMs?: number },
  ): Promise<LeanGatewayClient> {
    const timeoutMs = options.timeoutMs ?? 5000;
    const conn = await Deno.connect({ hostname: options.host, port: options.port });
    // The upgrade request goes out first: the deadline, its listener and the expected accept
    // value (together 1–3 ms of first calls in a fresh process) are made while the server
    // answers.
    const key = base64(crypto.getRandomValues(new Uint8Array(16)));
    const host = options.host.includes(":") ? `[${options.host}]` : options.host;
    const sent = writeAll(
      conn,
      new TextEncoder().encode(
        `GET /ws?token=${encodeURIComponent(options.token)} HTTP/1.1\r\n` +
          `Host: ${host}:${options.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      ),
    );
    // Not `setTimeout`: its first call in a process costs 10–20 ms (Deno 2.9), more than the
    // rest of the connection.
    const deadline = AbortSignal.timeout(timeoutMs);
    const onTimeout = () => conn.close();
    deadline.addEventListener("abort", onTimeout, { once: true });
    const expected = acceptFor(key);
    try {
      await sent;
      const { head, rest } = await readHead(conn);
      const status = /^HTTP\/1\.1 (\d{3})/.exec(head)?.[1];
      if (status !== "101") {
        throw new Error(
          `Cannot connect to the gateway on port ${options.port}: ` +
            `the upgrade was answered ${status ?? "with no HTTP status"}`,
        );
      }
      const accept = /^sec-websocket-accept:\s*(\S+)\s*$/im.exec(head)?.[1];
      if (accept !== expected) {
        throw new Error(
          `Cannot connect to the gateway on port ${options.port}: the upgrade answer is not ` +
            `a WebSocket handshake for this request`,
        );
      }
      return new LeanGatewayClient(conn, rest);
    } catch (error) {
      try {
        conn.close();
      } catch {
        // closed at the deadline already
      }
      if (deadline.aborted) {
        throw new Error(
          `Cannot connect to the gateway on port ${options.port}: no WebSocket upgrade within ` +
            `${timeoutMs} ms`,
        );
      }
      throw error;
    } finally {
      deadline.removeEventListener("abort", onTimeout);
    }
  }

  /** Sends a request and resolves with its result; rejects with {@linkcode RpcError}. */
  request<T = unknown>(method: string, params: unknown = {}): Promise<T> {
    if (this.#closed) return Promise.reject(new Error("The connection to the gateway is closed"));
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: (v) => resolve(v as T), reject });
      const text = JSON.stringify({ jsonrpc: "2.0", id, method, params });
      this.#send(OPCODE_TEXT, new TextEncoder().encode(text)).catch((error) => {
        this.#pending.delete(id);
        reject(new Error(`Cannot send to the gateway: ${(error as Error).message}`));
      });
    });
  }

  /** Listens for notifications; returns an unsubscribe function. */
  onNotification(listener: (n: ServerNotification) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Sends a close frame and closes the connection (nothing is waited for). */
  async close(): Promise<void> {
    if (this.#closed) return;
    await this.#send(OPCODE_CLOSE, new Uint8Array([0x03, 0xe8])).catch(() => undefined);
    this.#end();
  }

  #end(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#conn.close();
    } catch {
      // closed already
    }
    for (const p of this.#pending.values()) {
      p.reject(new Error("The gateway closed the connection"));
    }
    this.#pending.clear();
  }

  /** Writes one masked frame (a client's frames are always masked, RFC 6455 §5.3). */
  #send(opcode: number, payload: Uint8Array): Promise<void> {
    const length = payload.length;
    const extra = length < 126 ? 0 : length < 65_536 ? 2 : 8;
    const frame = new Uint8Array(2 + extra + 4 + length);
    frame[0] = 0x80 | opcode;
    frame[1] = 0x80 | (extra === 0 ? length : extra === 2 ? 126 : 127);
    const view = new DataView(frame.buffer);
    if (extra === 2) view.setUint16(2, length);
    if (extra === 8) view.setBigUint64(2, BigInt(length));
    const mask = crypto.getRandomValues(new Uint8Array(4));
    frame.set(mask, 2 + extra);
    const start = 2 + extra + 4;
    for (let i = 0; i < length; i++) frame[start + i] = payload[i]! ^ mask[i & 3]!;
    const next = this.#writing.then(() => writeAll(this.#conn, frame));
    this.#writing = next.catch(() => undefined);
    return next;
  }

  async #readFrames(initial: Uint8Array): Promise<void> {
    const input = new ByteInput(this.#conn, initial);
    let message: Uint8Array[] = [];
    for (;;) {
      const head = await input.take(2);
      if (head === null) return;
      const fin = (head[0]! & 0x80) !== 0;
      const opcode = head[0]! & 0x0f;
      const masked = (head[1]! & 0x80) !== 0;
      let length = head[1]! & 0x7f;
      if (length === 126) {
        const more = await input.take(2);
        if (more === null) return;
        length = new DataView(more.buffer, more.byteOffset).getUint16(0);
      } else if (length === 127) {
        const more = await input.take(8);
        if (more === null) return;
        length = Number(new DataView(more.buffer, more.byteOffset).getBigUint64(0));
      }
      const mask = masked ? await input.take(4) : null;
      if (masked && mask === null) return;
      const payload = await input.take(length);
      if (payload === null) return;
      if (mask) { for (let i = 0; i < payload.length; i++) payload[i]! ^= mask[i & 3]!; }
      if (opcode === OPCODE_CLOSE) return;
      if (opcode === OPCODE_PING) {
        await this.#send(OPCODE_PONG, payload);
        continue;
      }
      if (opcode !== OPCODE_TEXT && opcode !== OPCODE_CONTINUATION) continue;
      message.push(payload);
      if (!fin) continue;
      const whole = concatBytes(message);
      message = [];
      this.#receive(this.#decoder.decode(whole));
    }
  }

  #receive(data: string): void {
    receiveRpcText(data, this.#pending, this.#listeners);
  }
}

/**
 * The `Sec-WebSocket-Accept` a server must answer to `key` (RFC 6455 §4.2.2). SHA-1 by hand:
 * `crypto.subtle.digest` runs on Deno's blocking thread pool, which the fast path would start
 * for this one 60-byte digest.
 */
export function acceptFor(key: string): string {
  return base64(sha1(new TextEncoder().encode(key + WEBSOCKET_GUID)));
}

/** SHA-1 (FIPS 180-4) of a short message; only for the handshake check, never for security. */
export function sha1(message: Uint8Array): Uint8Array {
  const blocks = Math.ceil((message.length + 9) / 64);
  const padded = new Uint8Array(blocks * 64);
  padded.set(message);
  padded[message.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(message.length / 0x20000000));
  view.setUint32(padded.length - 4, (message.length * 8) >>> 0);
  const h = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0];
  const w = new Uint32Array(80);
  for (let block = 0; block < blocks; block++) {
    for (let t = 0; t < 16; t++) w[t] = view.getUint32(block * 64 + t * 4);
    for (let t = 16; t < 80; t++) {
      const x = w[t - 3]! ^ w[t - 8]! ^ w[t - 14]! ^ w[t - 16]!;
      w[t] = (x << 1) | (x >>> 31);
    }
    let [a, b, c, d, e] = h as [number, number, number, number, number];
    for (let t = 0; t < 80; t++) {
      const f = t < 20
        ? ((b & c) | (~b & d)) + 0x5a827999
        : t < 40
        ? (b ^ c ^ d) + 0x6ed9eba1
        : t < 60
        ? ((b & c) | (b & d) | (c & d)) + 0x8f1bbcdc
        : (b ^ c ^ d) + 0xca62c1d6;
      const next = (((a << 5) | (a >>> 27)) + f + e + w[t]!) >>> 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = next;
    }
    h[0] = (h[0]! + a) >>> 0;
    h[1] = (h[1]! + b) >>> 0;
    h[2] = (h[2]! + c) >>> 0;
    h[3] = (h[3]! + d) >>> 0;
    h[4] = (h[4]! + e) >>> 0;
  }
  const out = new Uint8Array(20);
  const outView = new DataView(out.buffer);
  h.forEach((word, i) => outView.setUint32(i * 4, word));
  return out;
}

const BASE64_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/**
 * Standard base64 with padding, by hand: `btoa` is loaded on its first call in a process,
 * which costs the fast path about 2 ms (Deno 2.9) for two 16- and 20-byte values.
 */
export function base64(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i]!;
    const b = bytes[i + 1];
    const c = bytes[i + 2];
    const n = (a << 16) | ((b ?? 0) << 8) | (c ?? 0);
    out += BASE64_DIGITS[(n >> 18) & 63]! + BASE64_DIGITS[(n >> 12) & 63]! +
      (b === undefined ? "=" : BASE64_DIGITS[(n >> 6) & 63]!) +
      (c === undefined ? "=" : BASE64_DIGITS[n & 63]!);
  }
  return out;
}

/** Reads the upgrade answer's header block; `rest` is what came after it (frames). */
async function readHead(conn: Deno.Conn): Promise<{ head: string; rest: Uint8Array }> {
  let buffered: Uint8Array = new Uint8Array(0);
  const chunk = new Uint8Array(4096);
  for (;;) {
    const end = indexOfHeadEnd(buffered);
    if (end >= 0) {
      return {
        head: new TextDecoder().decode(buffered.subarray(0, end)),
        rest: buffered.slice(end + 4),
      };
    }
    if (buffered.length > MAX_HEADER_BYTES) {
      throw new Error("The gateway's upgrade answer has too long a header");
    }
    const n = await conn.read(chunk);
    if (n === null) throw new Error("The gateway closed the connection during the upgrade");
    buffered = concatBytes([buffered, chunk.subarray(0, n)]);
  }
}

function indexOfHeadEnd(bytes: Uint8Array): number {
  for (let i = 0; i + 3 < bytes.length; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) {
      return i;
    }
  }
  return -1;
}

/** Exact-length reads over a connection, starting with bytes already read. */
class ByteInput {
  readonly #conn: Deno.Conn;
  /** Bytes read and not yet taken, in order; the first may be partly taken already. */
  readonly #chunks: Uint8Array[] = [];
  #length = 0;
  readonly #chunk = new Uint8Array(64 * 1024);

  constructor(conn: Deno.Conn, initial: Uint8Array) {
    this.#conn = conn;
    if (initial.length > 0) this.#chunks.push(initial);
    this.#length = initial.length;
  }

  /** The next `n` bytes (a copy), or null when the connection ends first. */
  async take(n: number): Promise<Uint8Array | null> {
    while (this.#length < n) {
      const read = await this.#conn.read(this.#chunk);
      if (read === null) return null;
      this.#chunks.push(this.#chunk.slice(0, read));
      this.#length += read;
    }
    const out = new Uint8Array(n);
    for (let at = 0; at < n;) {
      const first = this.#chunks[0]!;
      const part = Math.min(first.length, n - at);
      out.set(first.subarray(0, part), at);
      at += part;
      if (part === first.length) this.#chunks.shift();
      else this.#chunks[0] = first.subarray(part);
    }
    this.#length -= n;
    return out;
  }
}
