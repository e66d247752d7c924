/**
 * A `Transport` over a Worker's message port: a `Worker` seen from the thread that started it,
 * or the worker's own global scope seen from inside. Messages are structured clones, one per
 * `postMessage`: no framing, and a value that cannot be cloned throws at the send.
 * @module
 */

import {
  InboxBuffer,
  type Transport,
  type TransportEvents,
  type WireMessage,
} from "./transport.ts";

/** What the transport needs of a port: a `Worker`, or a worker's `globalThis`. */
export interface MessagePortLike {
  postMessage(message: unknown): void;
  onmessage: ((event: MessageEvent) => void) | null;
  onmessageerror?: ((event: MessageEvent) => void) | null;
  onerror?: ((event: ErrorEvent) => void) | null;
}

/** Settings of a {@linkcode WorkerPortTransport}. */
export interface WorkerPortTransportOptions {
  /** Ends the other side when this one closes (`worker.terminate()`). */
  end?: () => void;
  /** Told about each message that is not an object (dropped). */
  onDropped?: (why: string) => void;
  /**
   * Close when the port reports an uncaught error (a `Worker` seen from its parent: the
   * Worker is gone). @default {false}
   */
  closeOnError?: boolean;
}

/**
 * One end of a Worker's port; see the module doc.
 *
 * @example
 * ```ts ignore
 * const worker = new Worker(new URL("./entry.ts", import.meta.url), { type: "module" });
 * const peer = new MessagePeer(new WorkerPortTransport(worker, {
 *   end: () => worker.terminate(),
 *   closeOnError: true,
 * }));
 * ```
 */
export class WorkerPortTransport implements Transport {
  readonly #port: MessagePortLike;
  readonly #options: WorkerPortTransportOptions;
  readonly #inbox = new InboxBuffer();
  #closed = false;

  constructor(port: MessagePortLike, options: WorkerPortTransportOptions = {}) {
    this.#port = port;
    this.#options = options;
    port.onmessage = (event) => {
      const data: unknown = event.data;
      if (typeof data !== "object" || data === null || Array.isArray(data)) {
        options.onDropped?.("a message that is not an object");
        return;
      }
      this.#inbox.message(data as WireMessage);
    };
    port.onmessageerror = () => options.onDropped?.("a message that could not be read");
    if (options.closeOnError === true) {
      port.onerror = (event) => {
        event.preventDefault();
        this.close(`failed: ${event.message}`);
      };
    }
  }

  start(events: TransportEvents): void {
    this.#inbox.start(events);
  }

  send(message: WireMessage): void {
    if (this.#closed) return;
    this.#port.postMessage(message);
  }

  close(reason = "closed"): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#port.onmessage = null;
    try {
      this.#options.end?.();
    } finally {
      this.#inbox.close(reason);
    }
  }

  flushed(): Promise<void> {
    return Promise.resolve();
  }
}
