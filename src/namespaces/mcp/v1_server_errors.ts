/**
 * The v1 SDK's error type, for the gateway's own MCP server (`src/mcp_server/`) only: it still
 * runs on the v1 SDK's server, whose handlers must throw the v1 `McpError`, until it moves to
 * the v2 server package. Kept apart from `mcp_sdk.ts` so the upstream client code (v2) never
 * loads the v1 schemas. The v1 `.js` subpaths carry no types under Deno (their `types.js` export
 * maps to a missing file), so the values are typed from the extension-less path.
 * @module
 */

import * as v1TypesModule from "@modelcontextprotocol/sdk/types.js";
import type * as V1Types from "@modelcontextprotocol/sdk/types";

const v1Types = v1TypesModule as typeof V1Types;
/** The v1 SDK's protocol error (for the v1 server's handlers only). */
export const McpError: typeof V1Types.McpError = v1Types.McpError;
/** The v1 SDK's McpError instance type. */
export type McpError = V1Types.McpError;
/** The v1 SDK's JSON-RPC error codes (for the v1 server's handlers only). */
export const ErrorCode: typeof V1Types.ErrorCode = v1Types.ErrorCode;
