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
  timer: ReturnType<typeof setTimeout>;
  onAbort: () => void;
}

/** The `tools/call` requests of one stdio connection; see the module doc. */
export class StdioToolCalls {
  readonly #send: (message: JSONRPCMessage) => Promise<void>;
  readonly #pending = new Map<string, PendingCall>();
  #next = 1;
  #closed = false;

  /** `send` writes one message to the upstream (the transport's `send`). */
  constructor(send: (message: JSONRPCMessage) => Promise<void>) {
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
      const onTimeout = () =>
        this.#cancel(
          id,
          McpError.fromError(ErrorCode.RequestTimeout, "Request timed out", {
            timeout: options.timeout,
          }),
        );
      const onAbort = () => this.#cancel(id, options.signal.reason);
      const pending: PendingCall = {
        resolve,
        reject,
        options,
        startedAt: Date.now(),
        timer: setTimeout(onTimeout, options.timeout),
        onAbort,
      };
      this.#pending.set(id, pending);
      options.signal.addEventListener("abort", onAbort, { once: true });
      const params = options.onprogress === undefined
        ? { name, arguments: args }
        : { name, arguments: args, _meta: { progressToken: id } };
      this.#send({ jsonrpc: "2.0", id, method: "tools/call", params }).catch((error) => {
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
      if (!id.startsWith(ID_PREFIX) || "method" in record) return false;
      if (!("result" in record) && !("error" in record)) return false;
      this.#answer(id, record);
      return true;
    }
    if (record.method !== "notifications/progress") return false;
    const params = record.params as Record<string, unknown> | undefined;
    const token = params?.progressToken;
    if (typeof token !== "string" || !token.startsWith(ID_PREFIX)) return false;
    this.#progress(token, params!);
    return true;
  }

  /** The connection is gone: every call in flight rejects with `ConnectionClosed`. */
  close(): void {
    this.#closed = true;
    const error = McpError.fromError(ErrorCode.ConnectionClosed, "Connection closed");
    for (const id of [...this.#pending.keys()]) this.#settle(id)?.reject(error);
  }

  /** Removes call `id` and its timer and listener; the call, when it was still pending. */
  #settle(id: string): PendingCall | undefined {
    const pending = this.#pending.get(id);
    if (pending === undefined) return undefined;
    this.#pending.delete(id);
    clearTimeout(pending.timer);
    pending.options.signal.removeEventListener("abort", pending.onAbort);
    return pending;
  }

  #cancel(id: string, reason: unknown): void {
    const pending = this.#settle(id);
    if (pending === undefined) return;
    this.#send({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: id, reason: String(reason) },
    }).catch(() => undefined);
    pending.reject(
      reason instanceof McpError
        ? reason
        : McpError.fromError(ErrorCode.RequestTimeout, String(reason)),
    );
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
    const elapsed = Date.now() - pending.startedAt;
    if (elapsed >= options.maxTotalTimeout) {
      // Past the maximum: the upstream is told to stop, the caller learns why from `data`.
      this.#cancel(
        id,
        McpError.fromError(ErrorCode.RequestTimeout, "Maximum total timeout exceeded", {
          maxTotalTimeout: options.maxTotalTimeout,
          totalElapsed: elapsed,
        }),
      );
      return;
    }
    clearTimeout(pending.timer);
    pending.timer = setTimeout(
      () =>
        this.#cancel(
          id,
          McpError.fromError(ErrorCode.RequestTimeout, "Request timed out", {
            timeout: options.timeout,
          }),
        ),
      options.timeout,
    );
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
