/**
 * `/mcp`: the gateway's MCP server over streamable HTTP, stateless (a fresh server and transport
 * per request, as the SDK recommends when no session state is kept). Auth ran before this.
 * @module
 */

import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { createGatewayMcpServer, type GatewayCall } from "./gateway_mcp_server.ts";

/** Builds the request handler. */
export function createMcpHttpHandler(
  options: { call: GatewayCall; version: string },
): (request: Request) => Promise<Response> {
  return async (request) => {
    const server = createGatewayMcpServer(options);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request);
    } finally {
      // JSON responses are complete when handleRequest resolves.
      server.close().catch(() => undefined);
    }
  };
}
