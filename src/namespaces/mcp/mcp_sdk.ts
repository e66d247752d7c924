/**
 * The MCP client SDK the namespace code uses: `@modelcontextprotocol/client` 2.x, which speaks
 * both protocol eras (the 2025 `initialize` handshake and the 2026-07-28 `server/discover` era)
 * from one `Client`. Everything the namespace imports from the SDK comes through here, so the
 * SDK's surface in use is in one place.
 * @module
 */

export {
  auth as oauthFlow,
  Client,
  extractWWWAuthenticateParams,
  InsufficientScopeError,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  SSEClientTransport,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
export type {
  CallToolResult,
  ClientCapabilities,
  DiscoverResult,
  ElicitRequest,
  ElicitResult,
  JSONRPCMessage,
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  OAuthTokens,
  PriorDiscovery,
  ProtocolEra,
  Tool,
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/client";
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  LOG_LEVEL_META_KEY,
  parseJSONRPCMessage,
  PROTOCOL_VERSION_META_KEY,
  specTypeSchemas,
} from "@modelcontextprotocol/client";
import type { JSONRPCMessage } from "@modelcontextprotocol/client";

/** Parses one JSON-RPC message read off a transport; throws when it is not one. */
export const parseMessage: (value: unknown) => JSONRPCMessage = parseJSONRPCMessage;

/**
 * Validates a `tools/call` result (what `Client.callTool` checks every answer against): the
 * result as the SDK normalises it, or the issues that make it invalid.
 */
export function checkCallToolResult(
  value: unknown,
): { value: Record<string, unknown> } | { issues: string } {
  const checked = specTypeSchemas.CallToolResult["~standard"].validate(value);
  if (checked instanceof Promise) throw new Error("the SDK's result schema is asynchronous");
  if (checked.issues !== undefined) {
    return {
      issues: checked.issues.map((issue) =>
        `${
          issue.path?.map((p) => typeof p === "object" ? String(p.key) : String(p)).join(".")
        }: ${issue.message}`
      ).join("; "),
    };
  }
  return { value: checked.value as Record<string, unknown> };
}

/** The reserved `_meta` keys of the 2026-07-28 per-request envelope. */
export const ENVELOPE_KEYS = {
  protocolVersion: PROTOCOL_VERSION_META_KEY,
  clientInfo: CLIENT_INFO_META_KEY,
  clientCapabilities: CLIENT_CAPABILITIES_META_KEY,
  logLevel: LOG_LEVEL_META_KEY,
} as const;
