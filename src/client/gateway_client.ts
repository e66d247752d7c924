/**
 * A JSON-RPC client over the gateway's WebSocket: what the CLI (and tests) use to talk to a
 * running server. Requests are matched to answers by id; notifications go to listeners.
 * @module
 */

import { RpcError, type RpcErrorObject } from "../protocol/json_rpc.ts";

/** A notification the server pushed (`run.output`, `run.progress`). */
export interface ServerNotification {
  method: string;
  params: unknown;
}

/** A connected client. Close it when done; pending requests then reject. */
export class GatewayClient {
  readonly #socket: WebSocket;
  readonly #pending = new Map<
    number,
    { resolve: (v: unknown) => void; reject: (e: Error) => void }
  >();
  readonly #listeners = new Set<(n: ServerNotification) => void>();
  #nextId = 1;
  #closed = false;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.onmessage = (event) => this.#receive(event.data);
    socket.onclose = () => {
      this.#closed = true;
      for (const p of this.#pending.values()) {
        p.reject(new Error("The gateway closed the connection"));
      }
      this.#pending.clear();
    };
  }

  /** Connects to `ws://host:port/ws` with the token. */
  static connect(
    options: { host: string; port: number; token: string; timeoutMs?: number },
  ): Promise<GatewayClient> {
    const host = options.host.includes(":") ? `[${options.host}]` : options.host;
    const url = `ws://${host}:${options.port}/ws?token=${encodeURIComponent(options.token)}`;
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url);
      const timer = setTimeout(() => {
        socket.close();
        reject(
          new Error(
            `Cannot connect to the gateway at ${url.replace(/token=.*/, "token=…")}: timed out`,
          ),
        );
      }, options.timeoutMs ?? 5000);
      socket.onopen = () => {
        clearTimeout(timer);
        resolve(new GatewayClient(socket));
      };
      socket.onerror = (event) => {
        clearTimeout(timer);
        const message = event instanceof ErrorEvent ? event.message : "connection failed";
        reject(new Error(`Cannot connect to the gateway on port ${options.port}: ${message}`));
      };
    });
  }

  #receive(data: unknown): void {
    if (typeof data !== "string") return;
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    if (typeof message.method === "string" && message.id === undefined) {
      for (const l of this.#listeners) l({ method: message.method, params: message.params });
      return;
    }
    const id = typeof message.id === "number" ? message.id : null;
    const pending = id === null ? undefined : this.#pending.get(id);
    if (!pending || id === null) return;
    this.#pending.delete(id);
    if (message.error) {
      const error = message.error as RpcErrorObject;
      pending.reject(new RpcError(error.code, error.message, error.data));
    } else pending.resolve(message.result);
  }

  /** Sends a request and resolves with its result; rejects with {@linkcode RpcError}. */
  request<T = unknown>(method: string, params: unknown = {}): Promise<T> {
    if (this.#closed) return Promise.reject(new Error("The connection to the gateway is closed"));
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: (v) => resolve(v as T), reject });
      this.#socket.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    });
  }

  /** Listens for notifications; returns an unsubscribe function. */
  onNotification(listener: (n: ServerNotification) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Closes the connection and waits until it is closed. */
  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.#socket.addEventListener("close", () => resolve(), { once: true });
      this.#socket.close();
      setTimeout(resolve, 500);
    });
  }
}
