/**
 * `tools/call` over a stdio upstream without the SDK's request machinery: the SDK validates
 * every message it reads with zod several times over (message union, response guards, result
 * schema), which cost more than the upstream's whole answer (issue 12: an MCP call from a script
 * within 1.3× of the SDK client calling the server itself). Requests carry ids of their own
 * (`"gw-N"`), so their answers and progress are taken off the line before the SDK sees it;
 * everything else still goes through the SDK. A call behaves as `Client.callTool` does:
 * the same timeouts, cancellation, errors and result validation.
 * @module
 */

import { CallToolResultSchema, ErrorCode, type JSONRPCMessage, McpError } from "./mcp_sdk.ts";

/** What a call is told while it runs, as the SDK's `RequestOptions` word it. */
export interface StdioToolCallOptions {
  /** Aborting sends `notifications/cancelled` and rejects with the signal's reason. */
  signal: AbortSignal;
  /** No answer or progress for this long: cancelled, rejects with `RequestTimeout`. */
  timeout: number;
  /** Progress past this long since the start: cancelled, rejects with `RequestTimeout`. */
  maxTotalTimeout: number;
  /** Each progress notification for the call. */
  onprogress?: (
    progress: { progress: number; total?: number | undefined; message?: string | undefined },
  ) => void;
}

/** Prefix of the ids (and progress tokens) of the calls this module sends. */
const ID_PREFIX = "gw-";

interface PendingCall {
  resolve(result: Record<string, unknown>): void;
  reject(error: unknown): void;
  options: StdioToolCallOptions;
  startedAt: number;
  /** When the call times out: its last sign of life plus `timeout`, at most the maximum. */
  deadline: number;
  /** The calls in flight under the same signal (this call among them). */
  sharing: Set<string>;
}

/** The `tools/call` requests of one stdio connection; see the module doc. */
export class StdioToolCalls {
  readonly #send: (message: JSONRPCMessage, onFailed: (error: unknown) => void) => void;
  readonly #pending = new Map<string, PendingCall>();
  #next = 1;
  #closed = false;
  /** One timer for all calls, at the earliest deadline (a timer per call costs a fast call). */
  #sweep: ReturnType<typeof setTimeout> | undefined;
  #sweepAt = Infinity;
  readonly #bySignal = new WeakMap<AbortSignal, Set<string>>();

  /**
   * `send` writes one message to the upstream (the transport's `sendLine`) and tells
   * `onFailed` when it cannot.
   */
  constructor(send: (message: JSONRPCMessage, onFailed: (error: unknown) => void) => void) {
    this.#send = send;
  }

  /**
   * Calls tool `name` with `args`; resolves with the validated `CallToolResult`. Rejects as
   * the SDK does: `McpError` (`RequestTimeout`, `ConnectionClosed`, the upstream's error), the
   * zod error of a malformed result, or the transport's error when the request cannot be sent.
   */
  call(
    name: string,
    args: Record<string, unknown>,
    options: StdioToolCallOptions,
  ): Promise<Record<string, unknown>> {
    if (this.#closed) {
      return Promise.reject(McpError.fromError(ErrorCode.ConnectionClosed, "Connection closed"));
    }
    if (options.signal.aborted) return Promise.reject(options.signal.reason);
    const id = `${ID_PREFIX}${this.#next++}`;
    return new Promise((resolve, reject) => {
      const startedAt = Date.now();
      const pending: PendingCall = {
        resolve,
        reject,
        options,
        startedAt,
        deadline: Math.min(startedAt + options.timeout, startedAt + options.maxTotalTimeout),
        sharing: this.#callsUnder(options.signal),
      };
      this.#pending.set(id, pending);
      this.#armSweep(pending.deadline);
      if (this.#pending.size === 1) Deno.refTimer(this.#sweep!);
      pending.sharing.add(id);
      const params = options.onprogress === undefined
        ? { name, arguments: args }
        : { name, arguments: args, _meta: { progressToken: id } };
      this.#send({ jsonrpc: "2.0", id, method: "tools/call", params }, (error) => {
        if (this.#settle(id) !== undefined) reject(error);
      });
    });
  }

  /**
   * Offered each message read from the upstream before the SDK sees it: true when it was the
   * answer to, or the progress of, a call of this module (it is then handled here).
   */
  take(message: unknown): boolean {
    if (typeof message !== "object" || message === null) return false;
    const record = message as Record<string, unknown>;
    const id = record.id;
    if (typeof id === "string") {
      if (!this.#issued(id) || "method" in record) return false;
      if (!("result" in record) && !("error" in record)) return false;
      // A late answer (the call timed out or was cancelled) is dropped here without a word; an
      // id never sent goes on to the SDK, which reports it.
      this.#answer(id, record);
      return true;
    }
    if (record.method !== "notifications/progress") return false;
    const params = record.params as Record<string, unknown> | undefined;
    const token = params?.progressToken;
    if (typeof token !== "string" || !this.#issued(token)) return false;
    this.#progress(token, params!);
    return true;
  }

  /** Whether `id` is one this module sent (`gw-N` with N below the next number). */
  #issued(id: string): boolean {
    if (!id.startsWith(ID_PREFIX)) return false;
    const n = Number(id.slice(ID_PREFIX.length));
    return Number.isInteger(n) && n >= 1 && n < this.#next;
  }

  /** The connection is gone: every call in flight rejects with `ConnectionClosed`. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#sweep);
    this.#sweep = undefined;
    const error = McpError.fromError(ErrorCode.ConnectionClosed, "Connection closed");
    for (const id of [...this.#pending.keys()]) this.#settle(id)?.reject(error);
  }

  /** Removes call `id` and its timer and listener; the call, when it was still pending. */
  #settle(id: string): PendingCall | undefined {
    const pending = this.#pending.get(id);
    if (pending === undefined) return undefined;
    this.#pending.delete(id);
    if (this.#pending.size === 0 && this.#sweep !== undefined) Deno.unrefTimer(this.#sweep);
    pending.sharing.delete(id);
    return pending;
  }

  #cancel(id: string, reason: unknown): void {
    const pending = this.#settle(id);
    if (pending === undefined) return;
    this.#send({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: id, reason: String(reason) },
    }, () => undefined);
    pending.reject(
      reason instanceof McpError
        ? reason
        : McpError.fromError(ErrorCode.RequestTimeout, String(reason)),
    );
  }

  /**
   * The calls in flight under `signal` (a run's signal serves all its calls): one abort
   * listener per signal, not one added and removed per call.
   */
  #callsUnder(signal: AbortSignal): Set<string> {
    let ids = this.#bySignal.get(signal);
    if (ids === undefined) {
      const calls = new Set<string>();
      signal.addEventListener("abort", () => {
        for (const id of [...calls]) this.#cancel(id, signal.reason);
      }, { once: true });
      this.#bySignal.set(signal, calls);
      ids = calls;
    }
    return ids;
  }

  /** Makes sure the sweep runs by `deadline`. */
  #armSweep(deadline: number): void {
    if (this.#sweep !== undefined && this.#sweepAt <= deadline) return;
    clearTimeout(this.#sweep);
    this.#sweepAt = deadline;
    this.#sweep = setTimeout(() => this.#sweepDeadlines(), Math.max(0, deadline - Date.now()));
    // A call in flight keeps the process alive; the sweep of calls already answered does not.
    if (this.#pending.size === 0) Deno.unrefTimer(this.#sweep);
  }

  /** Times out every call past its deadline, then waits for the next deadline. */
  #sweepDeadlines(): void {
    this.#sweep = undefined;
    this.#sweepAt = Infinity;
    const now = Date.now();
    let next = Infinity;
    for (const [id, pending] of [...this.#pending]) {
      if (pending.deadline <= now) this.#timeOut(id, now);
      else next = Math.min(next, pending.deadline);
    }
    if (next !== Infinity) this.#armSweep(next);
  }

  /**
   * Ends call `id` at its deadline: past the maximum (`data.maxTotalTimeout` says so) or after
   * `timeout` without an answer or progress. The upstream is told to stop.
   */
  #timeOut(id: string, now: number): void {
    const pending = this.#pending.get(id);
    if (pending === undefined) return;
    const { options, startedAt } = pending;
    const error = now - startedAt >= options.maxTotalTimeout
      ? McpError.fromError(ErrorCode.RequestTimeout, "Maximum total timeout exceeded", {
        maxTotalTimeout: options.maxTotalTimeout,
        totalElapsed: now - startedAt,
      })
      : McpError.fromError(ErrorCode.RequestTimeout, "Request timed out", {
        timeout: options.timeout,
      });
    this.#cancel(id, error);
  }

  #answer(id: string, response: Record<string, unknown>): void {
    const pending = this.#settle(id);
    if (pending === undefined) return;
    if ("error" in response) {
      const error = response.error as { code?: unknown; message?: unknown; data?: unknown };
      pending.reject(
        McpError.fromError(
          typeof error?.code === "number" ? error.code : ErrorCode.InternalError,
          typeof error?.message === "string" ? error.message : "Unknown error",
          error?.data,
        ),
      );
      return;
    }
    const result = response.result;
    if (isPlainTextResult(result)) {
      pending.resolve(result);
      return;
    }
    const parsed = CallToolResultSchema.safeParse(result);
    if (parsed.success) pending.resolve(parsed.data);
    else pending.reject(parsed.error);
  }

  #progress(id: string, params: Record<string, unknown>): void {
    const pending = this.#pending.get(id);
    if (pending === undefined) return;
    const { options } = pending;
    const now = Date.now();
    if (now - pending.startedAt >= options.maxTotalTimeout) {
      this.#timeOut(id, now);
      return;
    }
    pending.deadline = Math.min(now + options.timeout, pending.startedAt + options.maxTotalTimeout);
    if (typeof params.progress !== "number") return;
    const update: { progress: number; total?: number; message?: string } = {
      progress: params.progress,
    };
    if (typeof params.total === "number") update.total = params.total;
    if (typeof params.message === "string") update.message = params.message;
    options.onprogress?.(update);
  }
}

/**
 * True for the common answer that needs no schema to be trusted: an object whose `content` holds
 * only `{type: "text", text}` blocks, with an optional boolean `isError` and optional object
 * `structuredContent`. Anything else is validated by the SDK's `CallToolResultSchema`, which
 * also drops unknown block keys exactly as `Client.callTool` does.
 */
function isPlainTextResult(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const result = value as Record<string, unknown>;
  if (!Array.isArray(result.content)) return false;
  if (result.isError !== undefined && typeof result.isError !== "boolean") return false;
  if (result._meta !== undefined) return false;
  const structured = result.structuredContent;
  if (
    structured !== undefined &&
    (typeof structured !== "object" || structured === null || Array.isArray(structured))
  ) {
    return false;
  }
  for (const block of result.content as unknown[]) {
    if (typeof block !== "object" || block === null) return false;
    const { type, text } = block as Record<string, unknown>;
    if (type !== "text" || typeof text !== "string" || Object.keys(block).length !== 2) {
      return false;
    }
  }
  return true;
}
