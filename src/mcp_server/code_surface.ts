/**
 * Code mode, the default exposure: the code-mode tools (code_mode_tools.ts) over the gateway's
 * own resources and prompts. A run whose call a policy holds asks a 2026-07-28 client in band
 * (held_calls.ts); `exec` and `run_script` can also run as tasks (task_methods.ts).
 * @module
 */

import {
  type InputRequiredResult,
  ProtocolError,
  ProtocolErrorCode,
} from "@modelcontextprotocol/server";
import { codeModeTools, type ExposedTool } from "./code_mode_tools.ts";
import type { ToolResultShape } from "./content_for_revision.ts";
import type { CallTurn } from "./call_turn.ts";
import type { GatewayCall } from "./gateway_call.ts";
import { gatewayContent } from "./gateway_content.ts";
import { type MintState, NeedsInput, withHeldCallRounds } from "./held_calls.ts";
import type { ListedTool, McpSurface } from "./mcp_surface.ts";

/** How code mode introduces itself to a host. */
export const CODE_MODE_INSTRUCTIONS =
  "Write TypeScript that calls tools as `await tools.<namespace>.<tool>(args)` and run it with `exec`. " +
  "Find tools with `search` and `describe`, read their types with `types` or the gateway://types/NS resources. " +
  "Only the script's output comes back. The gateway://guide resource explains the rest.";

/** The code-mode surface, with its tool table for the task methods. */
export interface CodeSurface extends McpSurface {
  /** The code-mode tools by name. */
  readonly tools: Readonly<Record<string, ExposedTool>>;
}

/** Builds code mode over `call`; `mint` signs the state of a run waiting for the client. */
export function codeSurface(call: GatewayCall, mint: MintState): CodeSurface {
  const tools = codeModeTools(withHeldCallRounds(call, mint));
  const listed: ListedTool[] = Object.entries(tools).map(([name, tool]) => ({
    name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
  }));
  return {
    ...gatewayContent(call, false),
    instructions: CODE_MODE_INSTRUCTIONS,
    toolsChange: false,
    tools,
    listTools: () => Promise.resolve(listed),
    async call(
      name: string,
      args: Record<string, unknown>,
      turn: CallTurn,
    ): Promise<ToolResultShape | InputRequiredResult> {
      const tool = tools[name];
      if (!tool) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Unknown tool "${name}" (tools: ${Object.keys(tools).join(", ")})`,
        );
      }
      const parsed = tool.parse(args);
      if (!parsed.ok) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Invalid arguments for tool "${name}": ${parsed.problem}`,
        );
      }
      try {
        return await tool.handle(parsed.value, turn);
      } catch (error) {
        if (error instanceof NeedsInput) return error.result;
        throw error;
      }
    },
    relaysLogsOf: () => false,
  };
}
