/**
 * Two linked transports in one process, for tests of anything that speaks through a
 * `MessagePeer`: what one end sends the other receives a microtask later (never in the
 * sender's turn, as on a real wire), as a JSON copy (a value a real wire could not carry
 * throws at the send, as it would there).
 * @module
 */

import {
  InboxBuffer,
  type Transport,
  type TransportEvents,
  type WireMessage,
} from "./transport.ts";

/**
 * One end of an in-memory pair; see the module doc.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InMemoryTransport } from "./in_memory_transport.ts";
 *
 * const [a, b] = InMemoryTransport.pair();
 * const seen: unknown[] = [];
 * b.start({ message: (m) => seen.push(m), close: () => {} });
 * a.send({ method: "hello" });
 * assert.deepEqual(seen, [], "delivered a microtask later");
 * await Promise.resolve();
 * assert.deepEqual(seen, [{ method: "hello" }]);
 * ```
 */
export class InMemoryTransport implements Transport {
  readonly #inbox = new InboxBuffer();
  #other: InMemoryTransport | undefined;
  /** Messages on their way to the other end, delivered together in one microtask. */
  #outbox: string[] = [];
  #closed = false;
  /** Messages this end sent (its test's view of the wire). */
  readonly sent: WireMessage[] = [];

  /** Two ends linked to each other. */
  static pair(): [InMemoryTransport, InMemoryTransport] {
    const a = new InMemoryTransport();
    const b = new InMemoryTransport();
    a.#other = b;
    b.#other = a;
    return [a, b];
  }

  start(events: TransportEvents): void {
    this.#inbox.start(events);
  }

  send(message: WireMessage): void {
    const text = JSON.stringify(message);
    if (text === undefined) throw new TypeError("The message is not JSON");
    if (this.#closed) return;
    this.sent.push(message);
    const other = this.#other;
    if (other === undefined) return;
    if (this.#outbox.length === 0) queueMicrotask(() => this.#deliver());
    this.#outbox.push(text);
  }

  close(reason = "closed"): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#inbox.close(reason);
    const other = this.#other;
    // What was sent before the close still arrives, then the other end hears the close.
    queueMicrotask(() => {
      this.#deliver();
      if (other !== undefined) other.#closeFromOther();
    });
  }

  flushed(): Promise<void> {
    return Promise.resolve();
  }

  #closeFromOther(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#inbox.close("closed by the other side");
  }

  #deliver(): void {
    const outbox = this.#outbox;
    this.#outbox = [];
    const other = this.#other;
    if (other === undefined) return;
    for (const text of outbox) other.#inbox.message(JSON.parse(text));
  }
}
