/**
 * How a failure inside the gateway reaches an MCP client: a caller's mistake (bad arguments, an
 * unknown prompt) is a JSON-RPC `-32602`, an unknown resource the spec's resource-not-found
 * (`-32002` to a 2025 client; the SDK answers it as `-32602` with the URI to a 2026-07-28 one),
 * a gateway-level refusal of a tool (policy, permissions, an unknown namespace) an `isError`
 * result the model can read, and anything else an internal error naming what broke.
 * @module
 */

import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { RpcCode, RpcError } from "../protocol/json_rpc.ts";
import { messageOf } from "../protocol/message_of.ts";
import type { ToolResultShape } from "./content_for_revision.ts";
import { ArgumentError } from "./code_mode_tools.ts";
import { UnknownResourceError } from "./mcp_resources.ts";
import { UnknownPromptError } from "./mcp_prompts.ts";

/** Turns an error from a gateway call into the JSON-RPC error the MCP client gets. */
export function toMcpError(error: unknown): Error {
  if (error instanceof ProtocolError) return error;
  if (error instanceof ArgumentError || error instanceof UnknownPromptError) {
    return new ProtocolError(ProtocolErrorCode.InvalidParams, error.message);
  }
  if (error instanceof UnknownResourceError) {
    return new ProtocolError(ProtocolErrorCode.ResourceNotFound, error.message, { uri: error.uri });
  }
  if (error instanceof RpcError) {
    return new ProtocolError(
      error.code === RpcCode.InvalidParams ? ProtocolErrorCode.InvalidParams : error.code,
      error.message,
      error.data,
    );
  }
  return new ProtocolError(ProtocolErrorCode.InternalError, `Internal error: ${messageOf(error)}`);
}

/**
 * A gateway-level failure of a tool (refused permission, unknown namespace, a workflow state):
 * an `isError` result starting `error[Kind]`, which the model can read and act on.
 */
export function gatewayErrorResult(error: RpcError): ToolResultShape {
  const kind = typeof error.data?.kind === "string" ? error.data.kind : "GatewayError";
  return {
    content: [{ type: "text", text: `error[${kind}]: ${error.message}` }],
    structuredContent: { error: { kind, message: error.message, ...(error.data ?? {}) } },
    isError: true,
  };
}

/** Whether `error` is a gateway-level refusal that becomes an `isError` tool result. */
export function isGatewayRefusal(error: unknown): error is RpcError {
  return error instanceof RpcError && error.code === RpcCode.GatewayError;
}

/** Runs `work`, turning whatever it throws into the client's JSON-RPC error. */
export async function answering<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw toMcpError(error);
  }
}
