/**
 * How the CLI talks to its server: JSON-RPC requests as `POST /rpc` over the server's unix
 * socket, each answered with JSON lines — the request's notifications as they happen
 * (`run.output`, `run.approval` while a call is held, …), then its response. The socket lives in
 * the data dir (mode 0700) and is checked to be this user's before anything is sent, so no
 * other user can stand in for a server that died and the token never crosses a TCP port; the
 * socket needs no token (whoever can open it can read the token file beside it). Where there
 * are no unix sockets (Windows) the same requests go to the TCP port with the token.
 *
 * One connection per request: a request's notifications are its own, a subscription
 * (`events.subscribe`) keeps its stream open until the client closes, and closing the client
 * closes every stream, which cancels the runs they started (as a closed WebSocket did). Each
 * request is a `MessagePeer`'s on its own wire.
 * @module
 */

import { readAnswer, requestBytes } from "./http_response_reader.ts";
import { HttpExchangeTransport } from "./http_exchange_transport.ts";
import { writeAll } from "../protocol/bytes.ts";
import { RpcCode, RpcError } from "../protocol/json_rpc.ts";
import { MessagePeer } from "../protocol/message_peer.ts";
import type { Transport } from "../protocol/transport.ts";
import { readTokenSync } from "../config/token_file.ts";

/** A notification the server pushed (`run.output`, `run.progress`). */
export interface ServerNotification {
  method: string;
  params: unknown;
}

/**
 * Opens the wire of one request: by default a connection of its own to the server, carrying
 * the request as `POST /rpc` (`HttpExchangeTransport`). Tests give one end of an in-memory pair.
 */
export type RequestWire = () => Promise<Transport>;

/** Where a server listens for its CLI. */
export type ServerEndpoint =
  | { transport: "unix"; path: string }
  | { transport: "tcp"; port: number; token: string };

/** The socket a `server.json` names is not one this user's server made: nothing was sent. */
export class ForeignSocketError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ForeignSocketError";
  }
}

/** No server listens where the client looked: nothing was sent. */
export class UnreachableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "UnreachableError";
  }
}

/**
 * Throws {@linkcode ForeignSocketError} unless `path` is a unix socket owned by this user. A
 * socket belongs to whoever bound it, so one of ours was made by a process running as us.
 */
export function assertOwnSocket(path: string): void {
  const info = Deno.lstatSync(path);
  const uid = Deno.uid();
  if (info.isSocket !== true) {
    throw new ForeignSocketError(`"${path}" is not a socket: refusing to talk to it`);
  }
  if (uid !== null && info.uid !== uid) {
    throw new ForeignSocketError(
      `The socket "${path}" belongs to uid ${info.uid}, not to you (uid ${uid}): ` +
        `refusing to talk to it; stop whatever made it, or delete it and start again`,
    );
  }
}

/**
 * The endpoint of the server a `server.json` describes: its socket, once checked to be ours;
 * without one (Windows), its loopback port and the data dir's token.
 */
export function endpointOf(
  state: { socket: string | null; port: number },
  dataDir: string,
): ServerEndpoint {
  if (state.socket !== null) {
    assertOwnSocket(state.socket);
    return { transport: "unix", path: state.socket };
  }
  return { transport: "tcp", port: state.port, token: readTokenSync(dataDir) };
}

/** A whole answer read as JSON (`body` is null when it was empty or not JSON). */
export interface JsonAnswer {
  status: number;
  body: unknown;
}

/** A client of one server. Close it when done: open requests reject, their runs are cancelled. */
export class GatewayHttpClient {
  readonly #endpoint: ServerEndpoint;
  readonly #listeners = new Set<(n: ServerNotification) => void>();
  readonly #conns = new Set<Deno.Conn>();
  /** The conversations of the requests still open (their streams, a subscription's too). */
  readonly #open = new Set<MessagePeer>();
  readonly #wire: RequestWire;
  #closed = false;

  constructor(endpoint: ServerEndpoint, options: { wire?: RequestWire } = {}) {
    this.#endpoint = endpoint;
    this.#wire = options.wire ?? (async () => {
      const conn = await this.#connect();
      // The request's wire owns the connection from here: closing it closes the connection.
      this.#conns.delete(conn);
      return new HttpExchangeTransport(conn, this.#headers());
    });
  }

  /** Where this client sends its requests. */
  get endpoint(): ServerEndpoint {
    return this.#endpoint;
  }

  /**
   * Sends a request and resolves with its result; rejects with {@linkcode RpcError} when the
   * server answers an error, with {@linkcode UnreachableError} when no server listens (nothing
   * was sent), and with an Error when the connection ends before the answer. `params` may be a
   * function, called once the connection is open: for params that must not be read when no
   * server answers (the CLI's piped stdin, which the full CLI then reads).
   */
  async request<T = unknown>(
    method: string,
    params: unknown | (() => Promise<unknown>) = {},
  ): Promise<T> {
    if (this.#closed) throw new Error("The connection to the gateway is closed");
    const wire = await this.#wire();
    if (this.#closed) {
      wire.close("closed by the client");
      throw new Error("The connection to the gateway is closed");
    }
    const peer = new MessagePeer(wire, {
      jsonRpc: true,
      // An HTTP refusal is no method's error: a plain Error with the status, as before RPC.
      remoteError: (error) => {
        const status = (error.data as { httpStatus?: unknown } | undefined)?.httpStatus;
        return typeof status === "number" ? new Error(error.message) : new RpcError(
          error.code ?? RpcCode.InternalError,
          error.message,
          error.data as RpcError["data"],
        );
      },
      goneError: (reason) =>
        reason === "closed by the client"
          ? new Error("The connection to the gateway was closed")
          : reason.startsWith("the connection failed: ")
          ? new Error(`The connection to the gateway failed: ${reason.slice(23)}`)
          : new Error("The gateway closed the connection before answering"),
    });
    this.#open.add(peer);
    peer.onClose(() => this.#open.delete(peer));
    peer.onNotification((name, notification) => {
      for (const listener of this.#listeners) listener({ method: name, params: notification });
    });
    try {
      const body = typeof params === "function" ? await params() : params;
      return await peer.request<T>(method, body);
    } catch (error) {
      peer.close("closed by the client");
      throw error;
    }
  }

  /** Listens for notifications of every request of this client; returns an unsubscribe. */
  onNotification(listener: (n: ServerNotification) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * One plain HTTP request (`GET /health`, `POST /ui/code` …) with its whole answer read as
   * JSON; `signal` gives up on it (the connection is closed).
   */
  async send(
    method: "GET" | "POST",
    path: string,
    options: { body?: unknown; signal?: AbortSignal } = {},
  ): Promise<JsonAnswer> {
    const conn = await this.#connect();
    const abort = () => conn.close();
    options.signal?.addEventListener("abort", abort, { once: true });
    try {
      const body = options.body === undefined ? null : JSON.stringify(options.body);
      await writeAll(conn, requestBytes(method, path, this.#headers(), body));
      const answer = await readAnswer(conn);
      const text = await readText(answer.body);
      let parsed: unknown = null;
      try {
        parsed = text === "" ? null : JSON.parse(text);
      } catch {
        // not JSON (a page): the status says enough
      }
      return { status: answer.status, body: parsed };
    } catch (error) {
      if (options.signal?.aborted) throw new Error(`No answer from the gateway to ${path} in time`);
      throw error;
    } finally {
      options.signal?.removeEventListener("abort", abort);
      this.#drop(conn);
    }
  }

  /** Closes every open request's connection; what still waits rejects. */
  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    for (const peer of [...this.#open]) peer.close("closed by the client");
    for (const conn of [...this.#conns]) this.#drop(conn);
    return Promise.resolve();
  }

  #headers(): Record<string, string> {
    const endpoint = this.#endpoint;
    return endpoint.transport === "unix"
      ? { Host: "localhost" }
      : { Host: `127.0.0.1:${endpoint.port}`, Authorization: `Bearer ${endpoint.token}` };
  }

  /** Opens a connection; rejects with {@linkcode UnreachableError} when nobody listens. */
  async #connect(): Promise<Deno.Conn> {
    const endpoint = this.#endpoint;
    let conn: Deno.Conn;
    try {
      conn = endpoint.transport === "unix"
        ? await Deno.connect({ transport: "unix", path: endpoint.path })
        : await Deno.connect({ hostname: "127.0.0.1", port: endpoint.port });
    } catch (error) {
      const where = endpoint.transport === "unix" ? endpoint.path : `port ${endpoint.port}`;
      throw new UnreachableError(
        `No gateway answers on ${where}: ${(error as Error).message}`,
        { cause: error },
      );
    }
    if (this.#closed) {
      conn.close();
      throw new Error("The connection to the gateway is closed");
    }
    this.#conns.add(conn);
    return conn;
  }

  #drop(conn: Deno.Conn): void {
    if (!this.#conns.delete(conn)) return;
    try {
      conn.close();
    } catch {
      // closed already
    }
  }
}

async function readText(body: AsyncIterable<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of body) text += decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}
