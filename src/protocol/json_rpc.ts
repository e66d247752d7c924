/**
 * JSON-RPC 2.0 envelopes and error codes as the gateway speaks them over WebSocket, plus the
 * one wire error type (`RpcError`) whose `data.kind` carries our failure kind.
 * @module
 */

/** Standard JSON-RPC error codes, and the gateway's own range. */
export const RpcCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** A gateway-level failure (unknown namespace, refused permission, …); `data.kind` says which. */
  GatewayError: -32000,
  /** The server is stopping and takes no new work. */
  ShuttingDown: -32001,
  /** Too much work queued; retry after `data.retryAfterMs`. */
  Overloaded: -32002,
} as const;

/** An id as JSON-RPC allows it. */
export type RpcId = string | number | null;

/** A request or notification (no `id`). */
export interface RpcRequest {
  jsonrpc: "2.0";
  id?: RpcId;
  method: string;
  params?: unknown;
}

/** The `error` member of a response. */
export interface RpcErrorObject {
  code: number;
  message: string;
  data?: { kind?: string; [key: string]: unknown };
}

/** A response: exactly one of `result` or `error`. */
export type RpcResponse =
  | { jsonrpc: "2.0"; id: RpcId; result: unknown }
  | { jsonrpc: "2.0"; id: RpcId; error: RpcErrorObject };

/** A server-to-client notification (`run.output`, `run.progress`, …). */
export interface RpcNotification {
  jsonrpc: "2.0";
  method: string;
  params: unknown;
}

/**
 * The one error that crosses the wire. Handlers throw it; the router turns anything else into
 * `InternalError` so no local detail leaks by accident.
 */
export class RpcError extends Error {
  /** JSON-RPC error code. */
  readonly code: number;
  /** Extra data, e.g. `{kind: "PermissionRefused"}`. */
  readonly data: RpcErrorObject["data"];
  constructor(code: number, message: string, data?: RpcErrorObject["data"]) {
    super(message);
    this.name = "RpcError";
    this.code = code;
    this.data = data;
  }

  /** The wire form. */
  toJSON(): RpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/** Builds a success response. */
export function rpcResult(id: RpcId, result: unknown): RpcResponse {
  return { jsonrpc: "2.0", id, result };
}

/** Builds an error response. */
export function rpcError(id: RpcId, error: RpcErrorObject): RpcResponse {
  return { jsonrpc: "2.0", id, error };
}

/** Deepest nesting a message may have before it is refused (guards against stack blow-ups). */
export const MAX_JSON_DEPTH = 64;

/**
 * Measures nesting depth of raw JSON text without parsing it, so a 100,000-deep document is
 * refused before `JSON.parse` builds it. Brackets inside strings are skipped.
 */
export function jsonDepthExceeds(text: string, limit: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash escapes the next character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > limit) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}
