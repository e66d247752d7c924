/**
 * What carries a `MessagePeer`'s messages across one process boundary: a unix socket,
 * a child's stdio, a Worker's port, or memory. A transport moves whole JSON-shaped messages in
 * order and says once when the other side is gone; what they mean (requests, answers, cancels)
 * is the peer's.
 * @module
 */

/** One message as it crosses a transport: a JSON object. */
export type WireMessage = Record<string, unknown>;

/** Where a transport delivers what it reads. */
export interface TransportEvents {
  /** One message from the other side. */
  message(message: WireMessage): void;
  /**
   * The transport is closed (by either side, or because the other side is gone): no message
   * follows. `reason` says why, in words a failure message can carry (`its process exited with
   * code 3`).
   */
  close(reason: string): void;
}

/** One end of a boundary; see the module doc. */
export interface Transport {
  /**
   * Delivers messages to `events` from now on, first those that arrived before. May be called
   * again to hand the transport to other events (a handshake before the peer).
   */
  start(events: TransportEvents): void;
  /**
   * Sends one message, written in the caller's turn when the wire is idle. Throws (and sends
   * nothing) when this message cannot be sent: over the size limit, or not serialisable. A
   * message sent once the transport is closed is dropped: the close says why.
   */
  send(message: WireMessage): void;
  /** Closes this end (idempotent); `close` is told once, with `reason`. */
  close(reason?: string): void;
  /** Resolves once everything sent so far is written (or the transport is closed). */
  flushed(): Promise<void>;
}

/**
 * Messages that arrive before a transport is started are kept here, and delivered in order when
 * it is; a close that comes first is delivered after them.
 */
export class InboxBuffer {
  #events: TransportEvents | null = null;
  #queued: WireMessage[] = [];
  #closedWith: string | null = null;
  #closeDelivered = false;

  /** True once the close was delivered (or is queued). */
  get closed(): boolean {
    return this.#closedWith !== null;
  }

  /** The events messages go to, once started. */
  start(events: TransportEvents): void {
    this.#events = events;
    if (this.#queued.length > 0) {
      const queued = this.#queued;
      this.#queued = [];
      for (const message of queued) {
        // A handler may hand the transport on (a handshake): the rest waits for the next one.
        if (this.#events !== events) {
          this.#queued.push(message);
          continue;
        }
        events.message(message);
      }
    }
    if (this.#closedWith !== null && !this.#closeDelivered && this.#events === events) {
      this.#closeDelivered = true;
      events.close(this.#closedWith);
    }
  }

  /** Stops delivering: messages queue until the next {@linkcode start}. */
  hold(): void {
    this.#events = null;
  }

  /** One message read. */
  message(message: WireMessage): void {
    if (this.#closedWith !== null) return;
    const events = this.#events;
    if (events === null) this.#queued.push(message);
    else events.message(message);
  }

  /** The transport closed; told once. */
  close(reason: string): void {
    if (this.#closedWith !== null) return;
    this.#closedWith = reason;
    if (this.#events !== null && this.#queued.length === 0) {
      this.#closeDelivered = true;
      this.#events.close(reason);
    }
  }
}
