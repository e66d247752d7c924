/**
 * One side of a conversation across a process boundary, on any `Transport`: requests matched to
 * their answers by id, notifications, cancellation, and one error for every request still
 * waiting once the other side is gone — the plumbing every boundary of the gateway shares (a
 * runner's channel, a tool host, a child worker, the CLI's requests), in the shape of the MCP
 * SDK's `Protocol`. The messages are JSON-RPC's: `{id, method, params}`, `{id, result}`,
 * `{id, error: {code, message, data}}`, `{method, params}`; `$/cancel` (`{id}`) asks the other
 * side to abort a request it serves, and `$/end` says no message follows.
 *
 * The fast path is built in: a request is written in the caller's turn, an answer reaches its
 * caller straight from the message that carries it ({@linkcode MessagePeer.call} takes
 * callbacks, no promise), and a handler's value is answered without a promise when it is not
 * one. Sending, answering, cancelling and the other side's going share the two maps of
 * requests in flight, one each way, so they live in one class.
 * @module
 */

import { RpcCode, RpcError } from "./json_rpc.ts";
import { messageOf } from "./message_of.ts";
import { PendingRequests, type RequestId } from "./pending_requests.ts";
import type { Transport, WireMessage } from "./transport.ts";

export type { RequestId } from "./pending_requests.ts";

/** An error as it crosses the wire (JSON-RPC's error object). */
export interface WireError {
  code?: number;
  message: string;
  data?: unknown;
}

/** Where the answer to a request sent with {@linkcode MessagePeer.call} goes. */
export interface Answer {
  /** The other side's result. */
  resolve(value: unknown): void;
  /** The other side's error (as `remoteError` built it), or why the peer is gone. */
  reject(error: unknown): void;
}

/** The other side is gone: what a waiting request rejects with unless `goneError` says else. */
export class PeerGoneError extends Error {
  /** Why, as the transport said (`its process exited with code 3`). */
  readonly reason: string;
  constructor(reason: string) {
    super(`The other side is gone: ${reason}`);
    this.name = "PeerGoneError";
    this.reason = reason;
  }
}

/** A request the other side sent, while it is served. */
export interface IncomingRequest {
  readonly id: RequestId;
  readonly method: string;
  /** Its params, as they came (the server may note things on them while it serves it). */
  readonly params: unknown;
  /** Aborted when the other side cancels the request or is gone (made on first use). */
  readonly signal: AbortSignal;
  /** True once the other side cancelled it. */
  readonly cancelled: boolean;
  /** True once answered. */
  readonly settled: boolean;
  /** Answers with `value`; throws (answering nothing) when `value` cannot be sent. */
  reply(value: unknown): void;
  /**
   * Answers with an error (`wireError` gives its wire form); one that cannot be sent is
   * answered with its code and the head of its message alone.
   */
  fail(error: unknown): void;
}

/** Settings of a {@linkcode MessagePeer}. */
export interface MessagePeerOptions {
  /**
   * What a request rejects with when the other side answered an error.
   * @default {an `RpcError` with its code, message and data}
   */
  remoteError?: (error: WireError) => unknown;
  /**
   * The wire form of what a handler threw.
   * @default {an `RpcError` as it is, anything else as `InternalError` with its message}
   */
  wireError?: (error: unknown) => WireError;
  /** What waiting requests reject with once the peer is gone. @default {a `PeerGoneError`} */
  goneError?: (reason: string) => unknown;
  /**
   * Leave waiting requests waiting when the peer is gone: the owner fails them
   * ({@linkcode MessagePeer.failPending}) once it knows why (a process's exit status).
   * @default {false}
   */
  holdPendingOnGone?: boolean;
  /** Why a cancelled request's signal aborted. @default {an `AbortError` DOMException} */
  cancelReason?: () => unknown;
  /** Told about each message the peer could not use (malformed, an unknown notification). */
  onDropped?: (why: string) => void;
  /** Writes `"jsonrpc": "2.0"` in every message (a public JSON-RPC wire). @default {false} */
  jsonRpc?: boolean;
}

type Handler = (params: unknown, request: IncomingRequest) => void;

const CANCEL = "$/cancel";
/** Characters kept of the message of an error that cannot be sent whole. */
const UNSENT_MESSAGE_CHARS = 4096;
const END = "$/end";

function defaultWireError(error: unknown): WireError {
  return error instanceof RpcError
    ? error.toJSON()
    : { code: RpcCode.InternalError, message: messageOf(error) };
}

function defaultRemoteError(error: WireError): unknown {
  return new RpcError(
    error.code ?? RpcCode.InternalError,
    error.message,
    error.data as RpcError["data"],
  );
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === "object" || typeof value === "function") && value !== null &&
    typeof (value as { then?: unknown }).then === "function";
}

/** The peer's internals an incoming request answers through. */
interface Responder {
  answer(request: Incoming, message: WireMessage): void;
  wireError(error: unknown): WireError;
  cancelReason(): unknown;
  stamp: boolean;
}

class Incoming implements IncomingRequest {
  readonly id: RequestId;
  readonly method: string;
  readonly params: unknown;
  readonly #responder: Responder;
  #controller: AbortController | undefined;
  cancelled = false;
  settled = false;

  constructor(responder: Responder, id: RequestId, method: string, params: unknown) {
    this.#responder = responder;
    this.id = id;
    this.method = method;
    this.params = params;
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.cancelled) this.#controller.abort(this.#responder.cancelReason());
    }
    return this.#controller.signal;
  }

  reply(value: unknown): void {
    if (this.settled) return;
    this.#responder.answer(
      this,
      this.#responder.stamp
        ? { jsonrpc: "2.0", id: this.id, result: value }
        : { id: this.id, result: value },
    );
  }

  fail(error: unknown): void {
    if (this.settled) return;
    const wire = this.#responder.wireError(error);
    try {
      this.#answerError(wire);
    } catch (unsent) {
      // Too large, or its data is not JSON: the caller still hears why, without the data.
      this.#answerError({
        code: wire.code ?? RpcCode.InternalError,
        message: `${String(wire.message).slice(0, UNSENT_MESSAGE_CHARS)} ` +
          `(its error cannot be sent whole: ${messageOf(unsent)})`,
      });
    }
  }

  #answerError(wire: WireError): void {
    this.#responder.answer(
      this,
      this.#responder.stamp
        ? { jsonrpc: "2.0", id: this.id, error: wire }
        : { id: this.id, error: wire },
    );
  }

  /** The other side cancelled it, or is gone. */
  abort(reason: unknown): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.#controller?.abort(reason);
  }
}

/**
 * One side of a boundary; see the module doc. `E` is what a request sent with
 * {@linkcode MessagePeer.call} keeps while it waits (its callbacks, and whatever else its
 * caller reads back through {@linkcode MessagePeer.entry}).
 *
 * @example Two peers over an in-memory pair
 * ```ts
 * import assert from "node:assert/strict";
 * import { MessagePeer } from "./message_peer.ts";
 * import { InMemoryTransport } from "./in_memory_transport.ts";
 *
 * const [a, b] = InMemoryTransport.pair();
 * const server = new MessagePeer(b);
 * server.handle("add", (params) => {
 *   const { x, y } = params as { x: number; y: number };
 *   return x + y;
 * });
 * const client = new MessagePeer(a);
 * assert.equal(await client.request("add", { x: 2, y: 3 }), 5);
 * client.close();
 * assert.equal(await server.closed, "closed by the other side");
 * ```
 */
export class MessagePeer<E extends Answer = Answer> {
  readonly #transport: Transport;
  readonly #pending = new PendingRequests<E>();
  readonly #incoming = new Map<RequestId, Incoming>();
  readonly #handlers = new Map<string, Handler>();
  readonly #notifications = new Map<string, (params: unknown) => void>();
  #anyNotification: ((method: string, params: unknown) => void) | undefined;
  readonly #options: MessagePeerOptions;
  readonly #stamp: boolean;
  readonly #responder: Responder;
  #closeReason: string | null = null;
  readonly #closed: Promise<string>;
  #settleClosed!: (reason: string) => void;
  #closeListeners: ((reason: string) => void)[] = [];

  constructor(transport: Transport, options: MessagePeerOptions = {}) {
    this.#transport = transport;
    this.#options = options;
    this.#stamp = options.jsonRpc === true;
    this.#closed = new Promise((resolve) => (this.#settleClosed = resolve));
    const wireError = options.wireError ?? defaultWireError;
    this.#responder = {
      answer: (request, message) => this.#answerIncoming(request, message),
      wireError: (error) => {
        try {
          return wireError(error);
        } catch (thrown) {
          return { code: RpcCode.InternalError, message: messageOf(thrown) };
        }
      },
      cancelReason: options.cancelReason ??
        (() => new DOMException("The request was cancelled", "AbortError")),
      stamp: this.#stamp,
    };
    // Started a microtask later: the handlers the owner registers right after construction
    // see the messages that arrived before (nothing real arrives in the same turn anyway).
    queueMicrotask(() =>
      transport.start({
        message: (message) => this.#receive(message),
        close: (reason) => this.#gone(reason),
      })
    );
  }

  /** Resolves, with the reason, once the other side is gone or this side closed. */
  get closed(): Promise<string> {
    return this.#closed;
  }

  /** Why the peer closed, or null while it is open. */
  get closeReason(): string | null {
    return this.#closeReason;
  }

  /** Requests sent and not answered yet. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /** Requests the other side sent that are being served. */
  get servingCount(): number {
    return this.#incoming.size;
  }

  /** Calls `listener` once, in the turn the peer closes (at once when it has). */
  onClose(listener: (reason: string) => void): void {
    if (this.#closeReason !== null) listener(this.#closeReason);
    else this.#closeListeners.push(listener);
  }

  /**
   * Sends request `method` and hands its answer to `entry` (straight from the message that
   * carries it, never in this turn). Returns the request's id. Throws, sending nothing, when
   * the peer is gone (`goneError`) or the request cannot be sent (too large, not JSON).
   */
  call(method: string, params: unknown, entry: E): RequestId {
    if (this.#closeReason !== null) throw this.#goneError(this.#closeReason);
    const id = this.#pending.nextId();
    this.#pending.add(id, entry);
    try {
      this.#transport.send(
        this.#stamp
          ? { jsonrpc: "2.0", id, method, params }
          : params === undefined
          ? { id, method }
          : { id, method, params },
      );
    } catch (error) {
      this.#pending.take(id);
      throw error;
    }
    return id;
  }

  /**
   * Sends request `method` and resolves with its result; rejects with the other side's error,
   * why the peer is gone, or `signal`'s reason (the other side is then told to cancel, and a
   * late answer is dropped).
   */
  request<T = unknown>(
    method: string,
    params?: unknown,
    options: { signal?: AbortSignal } = {},
  ): Promise<T> {
    const signal = options.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<T>((resolve, reject) => {
      if (signal === undefined) {
        this.call(method, params, { resolve, reject } as unknown as E);
        return;
      }
      const onAbort = () => {
        if (this.#pending.take(id) === undefined) return;
        this.cancel(id);
        reject(signal.reason);
      };
      const id = this.call(method, params, {
        resolve: (value: unknown) => {
          signal.removeEventListener("abort", onAbort);
          resolve(value as T);
        },
        reject: (error: unknown) => {
          signal.removeEventListener("abort", onAbort);
          reject(error);
        },
      } as unknown as E);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Sends notification `method`; throws when it cannot be sent, drops it once closed. */
  notify(method: string, params?: unknown): void {
    if (this.#closeReason !== null) return;
    this.#transport.send(
      this.#stamp
        ? { jsonrpc: "2.0", method, params }
        : params === undefined
        ? { method }
        : { method, params },
    );
  }

  /** What request `id` keeps while it waits (undefined once answered or given up). */
  entry(id: RequestId): E | undefined {
    return this.#pending.get(id);
  }

  /** Whether request `id` still waits for its answer. */
  isPending(id: RequestId): boolean {
    return this.#pending.has(id);
  }

  /** The ids of the requests waiting, oldest first. */
  pendingIds(): RequestId[] {
    return this.#pending.ids();
  }

  /**
   * Asks the other side to abort request `id`. The request still waits: its answer (the other
   * side's, once it stopped) is delivered, unless it is {@linkcode forget}-ten.
   */
  cancel(id: RequestId): void {
    if (this.#closeReason !== null) return;
    this.#transport.send(
      this.#stamp ? { jsonrpc: "2.0", method: CANCEL, params: { id } } : {
        method: CANCEL,
        params: { id },
      },
    );
  }

  /** Stops waiting for request `id` (a late answer is dropped); returns what it kept. */
  forget(id: RequestId): E | undefined {
    return this.#pending.take(id);
  }

  /** Fails request `id` alone with `error`. */
  fail(id: RequestId, error: unknown): void {
    this.#pending.take(id)?.reject(error);
  }

  /** Fails every waiting request with `error`. */
  failPending(error: unknown): void {
    for (const entry of this.#pending.takeAll()) entry.reject(error);
  }

  /**
   * Answers request `id` of the other side's, still served, with `value` (for a handler that
   * hands its requests on and hears their answers by id); false when no such request waits.
   */
  answer(id: RequestId, value: unknown): boolean {
    const request = this.#incoming.get(id);
    if (request === undefined) return false;
    request.reply(value);
    return true;
  }

  /** The other side's requests being served, oldest first. */
  serving(): IterableIterator<IncomingRequest> {
    return this.#incoming.values();
  }

  /** The other side's request `id`, while it is served. */
  served(id: RequestId): IncomingRequest | undefined {
    return this.#incoming.get(id);
  }

  /** Resolves once no request waits for its answer. */
  idle(): Promise<void> {
    return this.#pending.idle();
  }

  /**
   * Serves requests `method` with `handler`, whose value (or promise) is the answer and whose
   * throw (or rejection) the error. A value that is not a promise is answered in the turn the
   * request came.
   */
  handle(
    method: string,
    handler: (params: unknown, request: IncomingRequest) => unknown,
  ): void {
    this.serve(method, (params, request) => {
      let value: unknown;
      try {
        value = handler(params, request);
      } catch (error) {
        request.fail(error);
        return;
      }
      if (isThenable(value)) {
        value.then((result) => replyOrFail(request, result), (error) => request.fail(error));
      } else replyOrFail(request, value);
    });
  }

  /**
   * Serves requests `method` with `handler`, which answers through the request
   * ({@linkcode IncomingRequest.reply}, {@linkcode IncomingRequest.fail}) when it likes: for
   * servers that answer first and do their bookkeeping while the answer travels.
   */
  serve(method: string, handler: Handler): void {
    this.#handlers.set(method, handler);
  }

  /** Hands notifications `method` to `listener`. */
  on(method: string, listener: (params: unknown) => void): void {
    this.#notifications.set(method, listener);
  }

  /** Hands notifications no {@linkcode on} listener takes to `listener`. */
  onNotification(listener: (method: string, params: unknown) => void): void {
    this.#anyNotification = listener;
  }

  /**
   * Says no message follows (`$/end`) and closes: the other side has everything without
   * waiting for the transport's own end.
   */
  end(): void {
    if (this.#closeReason !== null) return;
    try {
      this.#transport.send(this.#stamp ? { jsonrpc: "2.0", method: END } : { method: END });
    } catch {
      // nothing more can be written: the close says the same
    }
    this.#transport.close("ended");
  }

  /** Closes this side: waiting requests fail, served ones are aborted. */
  close(reason = "closed"): void {
    this.#transport.close(reason);
  }

  /** Resolves once everything sent so far is written. */
  flushed(): Promise<void> {
    return this.#transport.flushed();
  }

  #goneError(reason: string): unknown {
    return this.#options.goneError?.(reason) ?? new PeerGoneError(reason);
  }

  #receive(message: WireMessage): void {
    const method = message.method;
    if (method === undefined) {
      this.#answer(message);
      return;
    }
    if (typeof method !== "string") {
      this.#options.onDropped?.("a message whose method is not a string");
      return;
    }
    const id = message.id;
    if (id === undefined) this.#notification(method, message.params);
    else if (typeof id === "number" || typeof id === "string") {
      this.#request(id, method, message.params);
    } else this.#options.onDropped?.(`a request to "${method}" whose id is not a number`);
  }

  #answer(message: WireMessage): void {
    const id = message.id;
    if (typeof id !== "number" && typeof id !== "string") {
      this.#options.onDropped?.("a message with neither a method nor an id");
      return;
    }
    const entry = this.#pending.take(id);
    if (entry === undefined) return; // a late answer: its request was given up
    const error = message.error;
    try {
      if (error === undefined) {
        entry.resolve(message.result);
        return;
      }
      const wire: WireError = typeof error === "object" && error !== null &&
          typeof (error as WireError).message === "string"
        ? error as WireError
        : { code: RpcCode.InternalError, message: `a malformed error answer: ${String(error)}` };
      entry.reject((this.#options.remoteError ?? defaultRemoteError)(wire));
    } catch (thrown) {
      // The caller's own code failed: reported as an uncaught error, the wire reads on.
      reportError(thrown);
    }
  }

  #notification(method: string, params: unknown): void {
    if (method === CANCEL) {
      const id = (params as { id?: unknown } | undefined)?.id;
      const request = typeof id === "number" || typeof id === "string"
        ? this.#incoming.get(id)
        : undefined;
      request?.abort(this.#responder.cancelReason());
      return;
    }
    if (method === END) {
      this.#transport.close("the other side ended");
      return;
    }
    const listener = this.#notifications.get(method);
    try {
      if (listener !== undefined) listener(params);
      else if (this.#anyNotification !== undefined) this.#anyNotification(method, params);
      else this.#options.onDropped?.(`a notification "${method}" nobody listens to`);
    } catch (thrown) {
      // A listener's own failure: reported as an uncaught error, the wire reads on.
      reportError(thrown);
    }
  }

  #request(id: RequestId, method: string, params: unknown): void {
    const handler = this.#handlers.get(method);
    const request = new Incoming(this.#responder, id, method, params);
    if (handler === undefined) {
      request.fail(new RpcError(RpcCode.MethodNotFound, `Unknown method "${method}"`));
      return;
    }
    this.#incoming.set(id, request);
    try {
      handler(params, request);
    } catch (error) {
      request.fail(error);
    }
  }

  #answerIncoming(request: Incoming, message: WireMessage): void {
    if (this.#closeReason !== null) {
      request.settled = true;
      return;
    }
    this.#transport.send(message); // throws when it cannot be sent: the request stays open
    request.settled = true;
    if (this.#incoming.get(request.id) === request) this.#incoming.delete(request.id);
  }

  #gone(reason: string): void {
    if (this.#closeReason !== null) return;
    this.#closeReason = reason;
    if (this.#incoming.size > 0) {
      const serving = [...this.#incoming.values()];
      this.#incoming.clear();
      const why = new DOMException(`The other side is gone: ${reason}`, "AbortError");
      for (const request of serving) request.abort(why);
    }
    if (!this.#options.holdPendingOnGone && this.#pending.size > 0) {
      this.failPending(this.#goneError(reason));
    }
    this.#settleClosed(reason);
    const listeners = this.#closeListeners;
    this.#closeListeners = [];
    for (const listener of listeners) listener(reason);
  }
}

/** Answers `request` with `value`, or with why `value` cannot be sent. */
function replyOrFail(request: IncomingRequest, value: unknown): void {
  try {
    request.reply(value);
  } catch (error) {
    request.fail(
      new RpcError(
        RpcCode.InternalError,
        `Cannot send the answer to "${request.method}": ${messageOf(error)}`,
      ),
    );
  }
}
