/**
 * The calls a tool host connection waits on (a process of its own or a Worker of the shared
 * host): answers matched by id, and the one error every waiting and later call gets once the
 * connection is retired or gone.
 * @module
 */

import { ToolCallError } from "../namespace.ts";
import type { ResultMessage } from "./tool_host_protocol.ts";

/** Where a call's answer goes: `resolve` gets the result message, `reject` the error failing it. */
export interface PendingCall {
  resolve(result: ResultMessage): void;
  reject(error: ToolCallError): void;
}

/** Calls in flight on one connection; both connection kinds keep their calls here. */
export class PendingCalls {
  #pending = new Map<number, PendingCall>();
  #retiredWith: ToolCallError | undefined;

  /** Number of calls waiting for an answer. */
  get size(): number {
    return this.#pending.size;
  }

  /** The error of a retired connection, which later calls get at once. */
  get retiredWith(): ToolCallError | undefined {
    return this.#retiredWith;
  }

  /** The ids of the calls waiting for an answer. */
  ids(): number[] {
    return [...this.#pending.keys()];
  }

  /** Whether call `id` still waits for its answer. */
  has(id: number): boolean {
    return this.#pending.has(id);
  }

  /**
   * Waits for call `id`'s answer (or the error that fails it), told to `call`'s callbacks
   * straight from the line that carries it: no promise between the answer and the caller
   * (issue 12).
   */
  add(id: number, call: PendingCall): void {
    this.#pending.set(id, call);
  }

  /** Delivers an answer; one for a call no longer waiting (timed out, cancelled) is dropped. */
  answer(result: ResultMessage): void {
    const pending = this.#pending.get(result.id);
    if (pending === undefined) return;
    this.#pending.delete(result.id);
    pending.resolve(result);
  }

  /** Fails call `id` alone with `error`. */
  fail(id: number, error: ToolCallError): void {
    const pending = this.#pending.get(id);
    this.#pending.delete(id);
    pending?.reject(error);
  }

  /** Fails every waiting and later call with `NamespaceUnavailable` and `message`. */
  retire(message: string): void {
    this.#retiredWith ??= new ToolCallError("NamespaceUnavailable", message);
    this.failAll(this.#retiredWith);
  }

  /** Fails every waiting call with `error` (the retirement's, when retired). */
  failAll(error: ToolCallError): void {
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const call of pending) call.reject(this.#retiredWith ?? error);
  }

  /** Resolves when no call waits any more, `gone()` says the connection ended, or after `maxMs`. */
  async drained(maxMs: number, gone: () => boolean): Promise<void> {
    const end = Date.now() + maxMs;
    while (this.#pending.size > 0 && !gone() && Date.now() < end) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}
