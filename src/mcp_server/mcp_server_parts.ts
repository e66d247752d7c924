/**
 * What the method groups of one MCP server instance share: its session, the surface it serves,
 * the gateway call, and the task methods when tasks are served.
 * @module
 */

import type { ServerContext } from "@modelcontextprotocol/server";
import type { GatewayCall } from "./gateway_call.ts";
import type { McpSession } from "./mcp_session.ts";
import type { McpSurface } from "./mcp_surface.ts";

/** Starts a code-mode run as a task when the client asked for one (task_methods.ts). */
export interface TaskStarter {
  /** A task answer for this call, or undefined when it runs as a plain call. */
  start(
    tool: string,
    args: Record<string, unknown>,
    ctx: ServerContext,
  ): Promise<Record<string, unknown>> | undefined;
}

/** The parts of one server instance. */
export interface McpServerParts {
  session: McpSession;
  surface: McpSurface;
  call: GatewayCall;
  /** Told what could not be delivered to the client (a host that went away). */
  onError: (message: string) => void;
  tasks?: TaskStarter;
}
