/**
 * A JSON-RPC client over the gateway's WebSocket on its TCP port, with the token: the wire other
 * programs (and lootbox's clients) use, and the tests' view of it. The CLI talks to its server
 * on the data dir's socket instead (`gateway_http_client.ts`). A `MessagePeer` on the socket
 * matches answers to requests by id; notifications go to listeners.
 * @module
 */

import { MessagePeer } from "../protocol/message_peer.ts";
import type { ServerNotification } from "./gateway_http_client.ts";
import { WebSocketTransport } from "./web_socket_transport.ts";

export type { ServerNotification } from "./gateway_http_client.ts";

/** A connected client. Close it when done; pending requests then reject. */
export class GatewayClient {
  readonly #socket: WebSocket;
  readonly #peer: MessagePeer;
  readonly #listeners = new Set<(n: ServerNotification) => void>();

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    this.#peer = new MessagePeer(new WebSocketTransport(socket), {
      jsonRpc: true,
      goneError: () => new Error("The gateway closed the connection"),
    });
    this.#peer.onNotification((method, params) => {
      for (const listener of this.#listeners) listener({ method, params });
    });
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

  /** Sends a request and resolves with its result; rejects with {@linkcode RpcError}. */
  request<T = unknown>(method: string, params: unknown = {}): Promise<T> {
    if (this.#peer.closeReason !== null) {
      return Promise.reject(new Error("The connection to the gateway is closed"));
    }
    return this.#peer.request<T>(method, params);
  }

  /** Listens for notifications; returns an unsubscribe function. */
  onNotification(listener: (n: ServerNotification) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Closes the connection and waits until it is closed. */
  close(): Promise<void> {
    if (this.#peer.closeReason !== null) return Promise.resolve();
    return new Promise((resolve) => {
      this.#socket.addEventListener("close", () => resolve(), { once: true });
      this.#socket.close();
      setTimeout(resolve, 500);
    });
  }
}
