/**
 * Reading a `tools/call` answer off the wire as the SDK's client does: the JSON-RPC error as a
 * `ProtocolError`, the 2026-07-28 result kind (`resultType`) and the result without it, and the
 * common plain-text answer that needs no schema to be trusted.
 * @module
 */

import { ProtocolError, ProtocolErrorCode } from "./mcp_sdk.ts";

/** A JSON-RPC error object as the SDK's `ProtocolError`. */
export function protocolError(value: unknown): ProtocolError {
  const error = isRecord(value) ? value : {};
  return ProtocolError.fromError(
    typeof error.code === "number" ? error.code : ProtocolErrorCode.InternalError,
    typeof error.message === "string" ? error.message : "Unknown error",
    error.data,
  );
}

/**
 * The kind of a `tools/call` answer: `resultType` on a 2026-07-28 connection ("complete" when
 * absent: a server of an earlier draft), always "complete" on a 2025 one.
 */
export function resultKind(result: unknown, modern: boolean): string {
  if (!modern || !isRecord(result)) return "complete";
  const kind = result.resultType;
  return typeof kind === "string" ? kind : "complete";
}

/** `result` without its `resultType` (the SDK strips it before any caller sees a result). */
export function withoutResultType(result: unknown): unknown {
  if (!isRecord(result) || !("resultType" in result)) return result;
  const { resultType: _kind, ...rest } = result;
  return rest;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * True for the common answer that needs no schema to be trusted: an object whose `content` holds
 * only `{type: "text", text}` blocks, with an optional boolean `isError` and optional object
 * `structuredContent`. Anything else is validated by the SDK's `CallToolResult` schema, as
 * `Client.callTool` does.
 */
export function isPlainTextResult(value: unknown): value is Record<string, unknown> {
  if (!isRecord(value)) return false;
  const result = value;
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
