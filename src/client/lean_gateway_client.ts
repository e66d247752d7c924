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
import { acceptFor, base64 } from "./websocket_accept.ts";

/** Largest header block of the upgrade answer accepted. */
const MAX_HEADER_BYTES = 16 * 1024;

const OPCODE_CONTINUATION = 0x0;
const OPCODE_TEXT = 0x1;
const OPCODE_CLOSE = 0x8;
const OPCODE_PING = 0x9;
const OPCODE_PONG = 0xa;

/**
 * The upgrade was not answered with a WebSocket handshake (another HTTP status, a connection
 * closed first, or no answer by the deadline). Unless {@linkcode HandshakeError.answered} is
 * false, the server read no frame of this connection: nothing sent on it ran.
 */
export class HandshakeError extends Error {
  /** False when the deadline passed with no answer: the server may yet read what was sent. */
  readonly answered: boolean;

  constructor(message: string, options: { answered: boolean }) {
    super(message);
    this.name = "HandshakeError";
    this.answered = options.answered;
  }
}

/** A client over one TCP connection. Close it when done; pending requests reject. */
export class LeanGatewayClient {
  readonly #conn: Deno.Conn;
  readonly #pending: PendingRequests = new Map();
  readonly #listeners = new Set<(n: ServerNotification) => void>();
  readonly #decoder = new TextDecoder("utf-8", { fatal: true });
  #nextId = 1;
  #closed = false;
  #writing: Promise<unknown>;
  /** Settles with the upgrade's answer; see {@linkcode LeanGatewayClient.handshake}. */
  readonly handshake: Promise<void>;

  /** The answer to `first` given to {@linkcode open} (request id 1), or null without one. */
  readonly firstAnswer: Promise<unknown> | null = null;

  private constructor(
    conn: Deno.Conn,
    upgrade: { sent: Promise<void>; key: string; port: number; timeoutMs: number; first: boolean },
  ) {
    this.#conn = conn;
    this.#writing = upgrade.sent.catch(() => undefined);
    if (upgrade.first) {
      this.firstAnswer = new Promise((resolve, reject) => {
        this.#pending.set(this.#nextId++, { resolve, reject });
      });
      // Caught here too: a refused handshake rejects it before its reader may be waiting.
      this.firstAnswer.catch(() => undefined);
    }
    const handshake = this.#readHandshake(upgrade);
    this.handshake = handshake.then(() => undefined);
    // Nobody may be waiting on the handshake yet: its failure is also every pending request's.
    this.handshake.catch(() => undefined);
    handshake.then((rest) => this.#readFrames(rest)).catch(() => undefined).finally(() =>
      this.#end()
    );
  }

  /**
   * Connects to `ws://host:port/ws` with the token and completes the upgrade; rejects when
   * the server cannot be reached or refuses (bad token, not a gateway) within `timeoutMs`.
   */
  static async connect(
    options: { host: string; port: number; token: string; timeoutMs?: number },
  ): Promise<LeanGatewayClient> {
    const client = await LeanGatewayClient.open(options);
    try {
      await client.handshake;
    } catch (error) {
      await client.close();
      throw error;
    }
    return client;
  }

  /**
   * Opens the TCP connection and sends the upgrade request without waiting for its answer,
   * with `first` (a request) in the same write: the server reads it once it has switched,
   * which saves the CLI a round trip, and the answer to the upgrade is checked while the
   * server works on the request. Rejects only when the connection cannot be made (nothing
   * was sent then); a refused upgrade rejects {@linkcode handshake} and `firstAnswer`.
   */
  static async open(
    options: {
      host: string;
      port: number;
      token: string;
      timeoutMs?: number;
      first?: { method: string; params: unknown };
    },
  ): Promise<LeanGatewayClient> {
    const conn = await Deno.connect({ hostname: options.host, port: options.port });
    const key = base64(crypto.getRandomValues(new Uint8Array(16)));
    const host = options.host.includes(":") ? `[${options.host}]` : options.host;
    const encoder = new TextEncoder();
    const upgrade = encoder.encode(
      `GET /ws?token=${encodeURIComponent(options.token)} HTTP/1.1\r\n` +
        `Host: ${host}:${options.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    );
    const first = options.first === undefined ? null : maskedFrame(
      OPCODE_TEXT,
      encoder.encode(
        JSON.stringify({ jsonrpc: "2.0", id: 1, ...options.first }),
      ),
    );
    const sent = writeAll(conn, first === null ? upgrade : concatBytes([upgrade, first]));
    return new LeanGatewayClient(conn, {
      sent,
      key,
      port: options.port,
      timeoutMs: options.timeoutMs ?? 5000,
      first: first !== null,
    });
  }

  /**
   * Reads and checks the upgrade's answer; resolves with the bytes that came after it. The
   * deadline, its listener and the expected accept value (together 1–3 ms of first calls in
   * a fresh process) are made while the server answers.
   */
  async #readHandshake(
    upgrade: { sent: Promise<void>; key: string; port: number; timeoutMs: number },
  ): Promise<Uint8Array> {
    const { port, timeoutMs } = upgrade;
    // Not `setTimeout`: its first call in a process costs 10–20 ms (Deno 2.9), more than the
    // rest of the connection.
    const deadline = AbortSignal.timeout(timeoutMs);
    const timedOut = () =>
      new HandshakeError(
        `Cannot connect to the gateway on port ${port}: no WebSocket upgrade within ` +
          `${timeoutMs} ms`,
        { answered: false },
      );
    const onTimeout = () => this.#end(timedOut());
    deadline.addEventListener("abort", onTimeout, { once: true });
    const expected = acceptFor(upgrade.key);
    try {
      await upgrade.sent;
      const { head, rest } = await readHead(this.#conn);
      const status = /^HTTP\/1\.1 (\d{3})/.exec(head)?.[1];
      if (status !== "101") {
        throw new HandshakeError(
          `Cannot connect to the gateway on port ${port}: ` +
            `the upgrade was answered ${status ?? "with no HTTP status"}`,
          { answered: true },
        );
      }
      const accept = /^sec-websocket-accept:\s*(\S+)\s*$/im.exec(head)?.[1];
      if (accept !== expected) {
        throw new HandshakeError(
          `Cannot connect to the gateway on port ${port}: the upgrade answer is not ` +
            `a WebSocket handshake for this request`,
          { answered: true },
        );
      }
      return rest;
    } catch (error) {
      const failure = deadline.aborted
        ? timedOut()
        : error instanceof HandshakeError
        ? error
        : new HandshakeError(
          `Cannot connect to the gateway on port ${port}: ${(error as Error).message}`,
          { answered: true },
        );
      this.#end(failure);
      throw failure;
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

  /**
   * Closes the connection and fails what still waits with `reason`. The default error is made
   * only when a request waits: the fast path's process would pay its first error's stack
   * (≈ 1.5 ms, see `lean_gateway_paths.ts`) on every clean close.
   */
  #end(reason?: Error): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#conn.close();
    } catch {
      // closed already
    }
    if (this.#pending.size === 0) return;
    const error = reason ?? new Error("The gateway closed the connection");
    for (const p of this.#pending.values()) p.reject(error);
    this.#pending.clear();
  }

  /** Writes one masked frame (a client's frames are always masked, RFC 6455 §5.3). */
  #send(opcode: number, payload: Uint8Array): Promise<void> {
    const frame = maskedFrame(opcode, payload);
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

/** One final frame of `payload`, masked as a client's frames must be (RFC 6455 §5.3). */
function maskedFrame(opcode: number, payload: Uint8Array): Uint8Array {
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
  return frame;
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
