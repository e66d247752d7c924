/**
 * `tools/list` and `tools/call` of the gateway's MCP server, answered from a surface. A call's
 * result is shaped for the client's protocol revision (content_for_revision.ts); a
 * gateway-level refusal becomes an `isError` result the model can read; an input-required
 * result (a held call, 2026-07-28) passes through as the surface built it.
 * @module
 */

import {
  type CallToolResult,
  isInputRequiredResult,
  type ListToolsResult,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { adaptToolResult } from "./content_for_revision.ts";
import { CallTurn } from "./call_turn.ts";
import { gatewayErrorResult, isGatewayRefusal, toMcpError } from "./mcp_errors.ts";
import type { McpServerParts } from "./mcp_server_parts.ts";

/** Registers the tool methods on the session's server. */
export function registerToolMethods(parts: McpServerParts): void {
  const { session, surface } = parts;
  const server = session.server;
  server.setRequestHandler("tools/list", async () => {
    try {
      // Tool schemas are JSON Schema as the gateway holds them; the SDK checks the shape.
      return { tools: await surface.listTools() as ListToolsResult["tools"] };
    } catch (error) {
      throw toMcpError(error);
    }
  });
  server.setRequestHandler("tools/call", async (request, ctx: ServerContext) => {
    const { name } = request.params;
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    const task = parts.tasks?.start(name, args, ctx);
    // A task (the tasks extension): the SDK's types leave it out of tools/call's results, and
    // its 2026-07-28 encoder passes `resultType: "task"` through as the extension defines.
    if (task) return await task as CallToolResult;
    const turn = new CallTurn(session, ctx, name, parts.call, parts.onError);
    try {
      let outcome;
      try {
        outcome = await surface.call(name, args, turn);
      } catch (error) {
        if (!isGatewayRefusal(error)) throw toMcpError(error);
        outcome = gatewayErrorResult(error);
      }
      if (isInputRequiredResult(outcome)) return outcome;
      await turn.settle();
      return server.projectCallToolResult(
        adaptToolResult(outcome, session.revision()) as CallToolResult,
        undefined,
      );
    } finally {
      turn.end();
    }
  });
}
