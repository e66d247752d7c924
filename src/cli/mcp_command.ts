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
import { UsageError } from "./usage_error.ts";

/** Usage text of `gateway mcp`. */
export const MCP_USAGE = `Usage: gateway mcp [--expose code|tools] [--root DIR]

Serves the gateway as an MCP server on stdin/stdout, with resources (types, guide, upstream
resources), prompts (upstream prompts, workflows), completions and logging.
  --expose code   (default) code-mode tools: exec, run_script, wait, cancel, search, describe,
                  types, catalog, history, workflow_start, workflow_step, workflow_status, invoke
  --expose tools  every upstream tool directly as <namespace>__<tool>, with policy and limits
Example .mcp.json entry:
  { "mcpServers": { "gateway": { "command": "gateway", "args": ["mcp"] } } }`;

/** Methods that start or hold a run: they stream output and can be cancelled. */
const RUN_METHODS = new Set(["exec", "run", "upstream.call"]);

/** Runs `gateway mcp`. */
export async function mcpCommand(args: string[], context: CliContext): Promise<number> {
  const parsed = parseCommandArgs(args, { strings: ["expose"] }, MCP_USAGE);
  const expose = parsed.flags.expose ?? "code";
  if (expose !== "code" && expose !== "tools") {
    throw new UsageError(`--expose must be "code" or "tools", not "${expose}"`, MCP_USAGE);
  }
  const connection = await context.connect();
  const server = createGatewayMcpServer({
    call: async (method, params, sink) => {
      if (!sink || !RUN_METHODS.has(method)) {
        return await connection.client.request(method, { ...params });
      }
      // A tool call gets its own connection: the gateway sends a run's notifications to the
      // connection that started it (so calls never see each other's), and closing it when the
      // MCP client cancels the request cancels the run.
      const own = await context.connect();
      const stop = own.client.onNotification((n) => sink.notify(n.method, n.params));
      const cancel = () => own.client.close();
      sink.signal?.addEventListener("abort", cancel, { once: true });
      try {
        return await own.client.request(method, { ...params });
      } finally {
        sink.signal?.removeEventListener("abort", cancel);
        stop();
        await own.client.close();
      }
    },
    version: GATEWAY_VERSION,
    onError: (message) => context.output.err(`warning: ${message}\n`),
    expose,
    events: (listener) =>
      connection.client.onNotification((n) => {
        if (n.method.startsWith("event.")) listener(n.method, n.params);
      }),
  });
  await connection.client.request("events.subscribe");
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => (transport.onclose = () => resolve()));
  await server.connect(transport);
  await closed;
  await connection.client.close();
  return 0;
}
