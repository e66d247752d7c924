/**
 * A `Transport` whose wire is not there yet: what is sent waits, in order, until the wire is
 * attached (a tool module whose Worker has not joined the gateway's socket yet takes calls all
 * the same). A message that could never cross a JSON wire throws at the send, as it would on
 * the wire itself; a request the wire refuses once attached (over its size limit) is answered
 * with the wire's reason.
 * @module
 */

import { RpcCode } from "./json_rpc.ts";
import { messageOf } from "./message_of.ts";
import {
  InboxBuffer,
  type Transport,
  type TransportEvents,
  type WireMessage,
} from "./transport.ts";

/**
 * See the module doc.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DeferredTransport } from "./deferred_transport.ts";
 * import { InMemoryTransport } from "./in_memory_transport.ts";
 *
 * const deferred = new DeferredTransport();
 * deferred.send({ method: "early" });
 * const [wire, other] = InMemoryTransport.pair();
 * const seen: unknown[] = [];
 * other.start({ message: (m) => seen.push(m), close: () => {} });
 * deferred.attach(wire);
 * await Promise.resolve();
 * assert.deepEqual(seen, [{ method: "early" }]);
 * ```
 */
export class DeferredTransport implements Transport {
  readonly #inbox = new InboxBuffer();
  #wire: Transport | undefined;
  #waiting: WireMessage[] = [];
  #closed = false;

  /** Whether a wire is attached. */
  get attached(): boolean {
    return this.#wire !== undefined;
  }

  /** Attaches the wire: what waited is sent on it, in order, and its messages come through. */
  attach(wire: Transport): void {
    if (this.#closed) {
      wire.close("closed before it was attached");
      return;
    }
    this.#wire = wire;
    wire.start({
      message: (message) => this.#inbox.message(message),
      close: (reason) => {
        this.#closed = true;
        this.#inbox.close(reason);
      },
    });
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const message of waiting) {
      try {
        wire.send(message);
      } catch (error) {
        this.#unsent(message, error);
      }
    }
  }

  start(events: TransportEvents): void {
    this.#inbox.start(events);
  }

  send(message: WireMessage): void {
    if (this.#closed) return;
    const wire = this.#wire;
    if (wire !== undefined) {
      wire.send(message);
      return;
    }
    if (JSON.stringify(message) === undefined) throw new TypeError("The message is not JSON");
    this.#waiting.push(message);
  }

  close(reason = "closed"): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#waiting = [];
    if (this.#wire !== undefined) this.#wire.close(reason);
    else this.#inbox.close(reason);
  }

  flushed(): Promise<void> {
    return this.#wire?.flushed() ?? Promise.resolve();
  }

  /**
   * A message that waited cannot cross the wire (over its size limit): a request is answered
   * with why, as the wire's own send would have thrown at the caller; anything else is dropped.
   */
  #unsent(message: WireMessage, error: unknown): void {
    const { id, method } = message;
    if ((typeof id !== "number" && typeof id !== "string") || typeof method !== "string") return;
    this.#inbox.message({
      id,
      error: {
        code: RpcCode.InternalError,
        message: `Cannot send "${method}": ${messageOf(error)}`,
      },
    });
  }
}
