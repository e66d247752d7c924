/**
 * Several conversations on one transport: each message of a channel carries the channel's
 * number in one field (`worker` on a tool Worker's socket, where every module the Worker runs
 * has its own `MessagePeer`), and messages without it are the transport's own (a module's
 * `join`). A channel closes alone (a module unloaded); the transport's close closes them all.
 * @module
 */

import {
  InboxBuffer,
  type Transport,
  type TransportEvents,
  type WireMessage,
} from "./transport.ts";

/**
 * One transport split into channels by a number field; see the module doc.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InMemoryTransport } from "./in_memory_transport.ts";
 * import { TransportMux } from "./transport_mux.ts";
 *
 * const [a, b] = InMemoryTransport.pair();
 * const mux = new TransportMux(b, "worker", { control: () => {}, close: () => {} });
 * const seen: unknown[] = [];
 * mux.channel(3).start({ message: (m) => seen.push(m), close: () => {} });
 * a.send({ worker: 3, method: "call" });
 * await Promise.resolve();
 * assert.deepEqual(seen, [{ worker: 3, method: "call" }]);
 * ```
 */
export class TransportMux {
  readonly #transport: Transport;
  readonly #field: string;
  readonly #channels = new Map<number, MuxChannel>();
  readonly #events: MuxEvents;
  #closed: string | null = null;

  constructor(transport: Transport, field: string, events: MuxEvents) {
    this.#transport = transport;
    this.#field = field;
    this.#events = events;
    transport.start({
      message: (message) => {
        const number = message[this.#field];
        if (typeof number !== "number") {
          events.control(message);
          return;
        }
        const channel = this.#channels.get(number);
        if (channel === undefined) {
          events.unrouted?.(number);
          return;
        }
        // The number stays on the message (a peer reads no field it does not know): deleting
        // a property costs the object its fast shape.
        channel.inbox.message(message);
      },
      close: (reason) => this.#close(reason),
    });
  }

  /** The transport's own close reason once it closed, else null. */
  get closed(): string | null {
    return this.#closed;
  }

  /**
   * Channel `number` (made on first use): a transport whose messages carry the number. A
   * channel of a closed mux is closed.
   */
  channel(number: number): Transport {
    let channel = this.#channels.get(number);
    if (channel === undefined) {
      channel = new MuxChannel(this, number);
      this.#channels.set(number, channel);
      if (this.#closed !== null) channel.inbox.close(this.#closed);
    }
    return channel;
  }

  /** Sends a message of the transport's own (no channel). */
  sendControl(message: WireMessage): void {
    this.#transport.send(message);
  }

  /** Closes the transport and every channel. */
  close(reason = "closed"): void {
    this.#transport.close(reason);
  }

  flushed(): Promise<void> {
    return this.#transport.flushed();
  }

  /** A channel's message, stamped with its number. */
  send(number: number, message: WireMessage): void {
    message[this.#field] = number;
    this.#transport.send(message);
  }

  /** A channel closed alone. */
  forget(number: number, channel: MuxChannel): void {
    if (this.#channels.get(number) === channel) this.#channels.delete(number);
  }

  #close(reason: string): void {
    if (this.#closed !== null) return;
    this.#closed = reason;
    for (const channel of this.#channels.values()) channel.inbox.close(reason);
    this.#events.close(reason);
  }
}

/** What a {@linkcode TransportMux} tells its owner. */
export interface MuxEvents {
  /** A message without a channel number (the transport's own). */
  control(message: WireMessage): void;
  /** A message for a channel nobody opened (dropped). */
  unrouted?(number: number): void;
  /** The transport closed: every channel closed with it. */
  close(reason: string): void;
}

/** One channel of a {@linkcode TransportMux}. */
class MuxChannel implements Transport {
  readonly inbox = new InboxBuffer();
  readonly #mux: TransportMux;
  readonly #number: number;

  constructor(mux: TransportMux, number: number) {
    this.#mux = mux;
    this.#number = number;
  }

  start(events: TransportEvents): void {
    this.inbox.start(events);
  }

  send(message: WireMessage): void {
    if (this.inbox.closed) return;
    this.#mux.send(this.#number, message);
  }

  close(reason = "closed"): void {
    this.#mux.forget(this.#number, this);
    this.inbox.close(reason);
  }

  flushed(): Promise<void> {
    return this.#mux.flushed();
  }
}
