/**
 * `gateway mcp`: the gateway as an MCP server on stdio, for hosts that launch MCP servers as
 * commands (Claude Desktop, editors). It forwards to the running gateway (started if needed).
 * @module
 */

import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createGatewayMcpServer } from "../mcp_server/gateway_mcp_server.ts";
import { GATEWAY_VERSION } from "../protocol/gateway_version.ts";
import type { CliContext } from "./cli_context.ts";
import { parseCommandArgs } from "./command_args.ts";

/** Usage text of `gateway mcp`. */
export const MCP_USAGE = `Usage: gateway mcp [--root DIR]

Serves the gateway as an MCP server on stdin/stdout (tools: exec, run_script, search, types,
catalog, wait, invoke). Example .mcp.json entry:
  { "mcpServers": { "gateway": { "command": "gateway", "args": ["mcp"] } } }`;

/** Runs `gateway mcp`. */
export async function mcpCommand(args: string[], context: CliContext): Promise<number> {
  const parsed = parseCommandArgs(args, {}, MCP_USAGE);
  if (parsed.flags.help) {
    context.output.out(`${MCP_USAGE}\n`);
    return 0;
  }
  const connection = await context.connect();
  const server = createGatewayMcpServer({
    call: async (method, params, notify) => {
      const off = notify
        ? connection.client.onNotification((n) => notify(n.method, n.params))
        : undefined;
      try {
        return await connection.client.request(method, { ...params });
      } finally {
        off?.();
      }
    },
    onError: (message) => context.output.err(`warning: ${message}\n`),
    version: GATEWAY_VERSION,
  });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => (transport.onclose = () => resolve()));
  await server.connect(transport);
  await closed;
  await connection.client.close();
  return 0;
}
