/**
 * A JSON-RPC client over the gateway's WebSocket on its TCP port, with the token: the wire other
 * programs (and lootbox's clients) use, and the tests' view of it. The CLI talks to its server
 * on the data dir's socket instead (`gateway_http_client.ts`). Requests are matched to answers
 * by id; notifications go to listeners.
 * @module
 */

import { type PendingRequests, receiveRpcText, type ServerNotification } from "./rpc_answers.ts";

export type { ServerNotification } from "./rpc_answers.ts";

/** A connected client. Close it when done; pending requests then reject. */
export class GatewayClient {
  readonly #socket: WebSocket;
  readonly #pending: PendingRequests = new Map();
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
    receiveRpcText(data, this.#pending, this.#listeners);
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
