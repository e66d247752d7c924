/**
 * The requests one side of a wire has sent and not had answered, by id: the one pending-request
 * map of the gateway (every `MessagePeer` keeps its requests here, and so does the stdio
 * upstream's direct call path). An answer is handed to its entry straight from the message
 * that carries it: no promise between the answer and the caller.
 * @module
 */

/** A request id as JSON-RPC allows it (the gateway's own wires use numbers). */
export type RequestId = number | string;

/**
 * Requests waiting for their answers. `E` is what the owner keeps per request (its callbacks,
 * and whatever else it needs, such as a way to find the caller's line).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PendingRequests } from "./pending_requests.ts";
 *
 * const pending = new PendingRequests<(value: string) => void>();
 * const answers: string[] = [];
 * const id = pending.nextId();
 * pending.add(id, (value) => answers.push(value));
 * pending.take(id)?.("done");
 * assert.deepEqual(answers, ["done"]);
 * assert.equal(pending.take(id), undefined, "an answer to an id no longer waiting is dropped");
 * ```
 */
export class PendingRequests<E> {
  readonly #entries = new Map<RequestId, E>();
  #next = 1;
  #idle: (() => void)[] = [];

  /** Requests waiting for an answer. */
  get size(): number {
    return this.#entries.size;
  }

  /** A number never handed out before by this map. */
  nextId(): number {
    return this.#next++;
  }

  /** Waits for the answer to `id`. */
  add(id: RequestId, entry: E): void {
    this.#entries.set(id, entry);
  }

  /** The entry of `id`, left waiting. */
  get(id: RequestId): E | undefined {
    return this.#entries.get(id);
  }

  /** Whether `id` still waits. */
  has(id: RequestId): boolean {
    return this.#entries.has(id);
  }

  /** Removes and returns the entry of `id` (its answer came, or it was given up). */
  take(id: RequestId): E | undefined {
    const entry = this.#entries.get(id);
    if (entry === undefined) return undefined;
    this.#entries.delete(id);
    if (this.#entries.size === 0 && this.#idle.length > 0) this.#wake();
    return entry;
  }

  /** The ids waiting, oldest first. */
  ids(): RequestId[] {
    return [...this.#entries.keys()];
  }

  /** The entries waiting, oldest first. */
  values(): IterableIterator<E> {
    return this.#entries.values();
  }

  /** The ids and entries waiting, oldest first. */
  entries(): IterableIterator<[RequestId, E]> {
    return this.#entries.entries();
  }

  /** Removes and returns every entry (the wire is gone: the owner fails them). */
  takeAll(): E[] {
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    if (this.#idle.length > 0) this.#wake();
    return entries;
  }

  /** Resolves once no request waits (at once when none does). */
  idle(): Promise<void> {
    if (this.#entries.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #wake(): void {
    const idle = this.#idle;
    this.#idle = [];
    for (const resolve of idle) resolve();
  }
}
