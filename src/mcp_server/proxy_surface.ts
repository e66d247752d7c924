/**
 * The proxy exposure (`--expose tools`, `/mcp?expose=tools`): every upstream tool listed as
 * `<namespace>__<tool>` (proxy_tools.ts) over the gateway's own resources and prompts, for hosts
 * that cannot write code. Upstream log messages are relayed, since the proxy stands in for them.
 * @module
 */

import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import type { GatewayCall } from "./gateway_call.ts";
import { gatewayContent } from "./gateway_content.ts";
import type { McpSurface } from "./mcp_surface.ts";
import { callProxyTool, listProxyTools, type ProxyTool } from "./proxy_tools.ts";

/** How the proxy introduces itself to a host. */
export const PROXY_INSTRUCTIONS =
  "Every upstream tool is listed as <namespace>__<tool>; calls go through the gateway's policy and limits.";

/** Builds the proxy exposure over `call`. */
export function proxySurface(call: GatewayCall): McpSurface {
  let listed: ProxyTool[] = [];
  const refresh = async () => (listed = await listProxyTools(call));
  return {
    ...gatewayContent(call, true),
    instructions: PROXY_INSTRUCTIONS,
    toolsChange: true,
    async listTools() {
      return (await refresh()).map((t) => ({
        name: t.exposedName,
        description: `[${t.namespace}] ${t.description}`.trim(),
        inputSchema: { type: "object", ...t.inputSchema },
        ...(t.outputSchema ? { outputSchema: t.outputSchema } : {}),
        ...(t.annotations ? { annotations: t.annotations } : {}),
      }));
    },
    async call(name, args, turn) {
      const target = listed.find((t) => t.exposedName === name) ??
        (await refresh()).find((t) => t.exposedName === name);
      if (!target) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Unknown tool "${name}": tools/list shows the ${listed.length} tools (<namespace>__<tool>)`,
        );
      }
      return await callProxyTool(call, target, args, turn);
    },
    relaysLogsOf: () => true,
  };
}
