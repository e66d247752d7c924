/**
 * A `Transport` over a WebSocket: one JSON message per text frame (the gateway's `/ws`, which
 * other programs and the tests speak). A frame that is not a JSON object is dropped; the socket
 * closing closes the transport.
 * @module
 */

import {
  InboxBuffer,
  type Transport,
  type TransportEvents,
  type WireMessage,
} from "../protocol/transport.ts";

/** See the module doc. */
export class WebSocketTransport implements Transport {
  readonly #socket: WebSocket;
  readonly #inbox = new InboxBuffer();

  /** `socket` is open already. */
  constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.onmessage = (event) => {
      if (typeof event.data !== "string") return;
      let message: unknown;
      try {
        message = JSON.parse(event.data);
      } catch {
        return; // the server sends only JSON-RPC
      }
      if (typeof message === "object" && message !== null && !Array.isArray(message)) {
        this.#inbox.message(message as WireMessage);
      }
    };
    socket.onclose = () => this.#inbox.close("closed by the other side");
  }

  start(events: TransportEvents): void {
    this.#inbox.start(events);
  }

  send(message: WireMessage): void {
    const text = JSON.stringify(message);
    if (text === undefined) throw new TypeError("The message is not JSON");
    if (this.#socket.readyState !== WebSocket.OPEN) return;
    this.#socket.send(text);
  }

  close(reason = "closed"): void {
    this.#socket.close();
    this.#inbox.close(reason);
  }

  flushed(): Promise<void> {
    return Promise.resolve();
  }
}
