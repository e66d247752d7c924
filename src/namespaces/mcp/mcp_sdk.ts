/**
 * Typed entry points into `@modelcontextprotocol/sdk` 1.32.2 for Deno. The SDK's `"./*"` export
 * maps `types.js` to a missing `types.js.d.ts`, so under Deno every `.js` subpath import is
 * silently `any` (modelcontextprotocol/typescript-sdk#2701). Values come from the `.js` paths,
 * their types from the extension-less paths (type-only imports, erased at run time).
 * @module
 */

import * as sseModule from "@modelcontextprotocol/sdk/client/sse.js";
import type * as SseTyped from "@modelcontextprotocol/sdk/client/sse";
import * as stdioModule from "@modelcontextprotocol/sdk/client/stdio.js";
import type * as StdioTyped from "@modelcontextprotocol/sdk/client/stdio";
import * as streamableModule from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type * as StreamableTyped from "@modelcontextprotocol/sdk/client/streamableHttp";
import * as typesModule from "@modelcontextprotocol/sdk/types.js";
import * as authModule from "@modelcontextprotocol/sdk/client/auth.js";
import type * as AuthTyped from "@modelcontextprotocol/sdk/client/auth";
import type * as TypesTyped from "@modelcontextprotocol/sdk/types";

export { Client } from "@modelcontextprotocol/sdk/client";
export type { Transport } from "@modelcontextprotocol/sdk/shared/transport";
export type { JSONRPCMessage, Tool } from "@modelcontextprotocol/sdk/types";

const sse = sseModule as typeof SseTyped;
const stdio = stdioModule as typeof StdioTyped;
const streamable = streamableModule as typeof StreamableTyped;
const types = typesModule as typeof TypesTyped;
const authTyped = authModule as typeof AuthTyped;

/** The SDK's OAuth client flow (discovery, registration, PKCE, token exchange, refresh), typed. */
export const oauthFlow: typeof AuthTyped.auth = authTyped.auth;

/** The SDK's client side of the old HTTP+SSE transport, typed. */
export const SSEClientTransport: typeof SseTyped.SSEClientTransport = sse.SSEClientTransport;
/** The SDK's streamable HTTP client transport, typed. */
export const StreamableHTTPClientTransport: typeof StreamableTyped.StreamableHTTPClientTransport =
  streamable.StreamableHTTPClientTransport;
/** The SDK's minimal environment for stdio servers (`PATH`, `HOME`, `USER`, …), typed. */
export const getDefaultEnvironment: typeof StdioTyped.getDefaultEnvironment =
  stdio.getDefaultEnvironment;
/** Errors the SDK raises for protocol failures (timeouts carry `ErrorCode.RequestTimeout`). */
export const McpError: typeof TypesTyped.McpError = types.McpError;
/** The SDK's McpError instance type. */
export type McpError = TypesTyped.McpError;
/** JSON-RPC and SDK error codes. */
export const ErrorCode: typeof TypesTyped.ErrorCode = types.ErrorCode;
/** Validates one JSON-RPC message read off a transport. */
export const JSONRPCMessageSchema: typeof TypesTyped.JSONRPCMessageSchema =
  types.JSONRPCMessageSchema;
/** Validates a `tools/call` result (what `Client.callTool` checks every answer against). */
export const CallToolResultSchema: typeof TypesTyped.CallToolResultSchema =
  types.CallToolResultSchema;
/** `notifications/tools/list_changed`. */
export const ToolListChangedNotificationSchema:
  typeof TypesTyped.ToolListChangedNotificationSchema = types.ToolListChangedNotificationSchema;
/** `notifications/prompts/list_changed`. */
export const PromptListChangedNotificationSchema:
  typeof TypesTyped.PromptListChangedNotificationSchema = types.PromptListChangedNotificationSchema;
/** `notifications/message` (server log lines). */
export const LoggingMessageNotificationSchema: typeof TypesTyped.LoggingMessageNotificationSchema =
  types.LoggingMessageNotificationSchema;
/** `notifications/resources/updated` (a subscribed resource changed). */
export const ResourceUpdatedNotificationSchema:
  typeof TypesTyped.ResourceUpdatedNotificationSchema = types.ResourceUpdatedNotificationSchema;
