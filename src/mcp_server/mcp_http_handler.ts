/**
 * `/mcp`: the gateway's MCP server over streamable HTTP, with sessions (the negotiated
 * revision, log level and subscriptions live per session) and SSE answers, so progress and log
 * notifications stream while a run goes on. `?expose=tools` serves the proxy exposure. Sessions
 * are capped and expire when idle, so forgotten clients cannot pile up. Auth ran before this.
 * @module
 */

import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  createGatewayMcpServer,
  type GatewayCall,
  type GatewayEvents,
  type McpExposure,
} from "./gateway_mcp_server.ts";

/** Sessions kept at once; the least recently used goes first beyond this. */
export const MAX_MCP_SESSIONS = 64;
/** A session unused this long is closed. */
export const MCP_SESSION_IDLE_MS = 30 * 60 * 1000;

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  close(): Promise<void>;
  lastUsed: number;
  expose: McpExposure;
}

function jsonError(status: number, message: string): Response {
  return new Response(
    JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32000, message } }),
    { status, headers: { "content-type": "application/json" } },
  );
}

/** Builds the request handler; `close()` ends every session (server shutdown). */
export function createMcpHttpHandler(
  options: { call: GatewayCall; version: string; events?: GatewayEvents },
): ((request: Request) => Promise<Response>) & { close(): Promise<void> } {
  const sessions = new Map<string, Session>();

  const evict = async () => {
    const now = Date.now();
    for (const [id, s] of sessions) {
      if (now - s.lastUsed > MCP_SESSION_IDLE_MS) {
        sessions.delete(id);
        await s.close();
      }
    }
    while (sessions.size >= MAX_MCP_SESSIONS) {
      const oldest = [...sessions].sort((a, b) => a[1].lastUsed - b[1].lastUsed)[0];
      if (!oldest) break;
      sessions.delete(oldest[0]);
      await oldest[1].close();
    }
  };

  const handler = async (request: Request): Promise<Response> => {
    const exposeParam = new URL(request.url).searchParams.get("expose") ?? "code";
    if (exposeParam !== "code" && exposeParam !== "tools") {
      return jsonError(400, `Unknown exposure "${exposeParam}" in ?expose= (use code or tools)`);
    }
    const expose: McpExposure = exposeParam;
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId) {
      const session = sessions.get(sessionId);
      if (!session) {
        return jsonError(
          404,
          `Unknown or expired MCP session "${sessionId}": initialize a new session`,
        );
      }
      if (session.expose !== expose) {
        return jsonError(
          400,
          `MCP session "${sessionId}" was opened with ?expose=${session.expose}`,
        );
      }
      session.lastUsed = Date.now();
      return await session.transport.handleRequest(request);
    }
    if (request.method !== "POST") {
      return jsonError(400, "Bad request: no mcp-session-id header; POST an initialize first");
    }
    await evict();
    const server = createGatewayMcpServer({ ...options, expose });
    const transport: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (id: string) => {
          sessions.set(id, {
            transport,
            expose,
            lastUsed: Date.now(),
            close: () => server.close().catch(() => undefined),
          });
        },
        onsessionclosed: (id: string) => {
          sessions.delete(id);
        },
      });
    await server.connect(transport);
    const response = await transport.handleRequest(request);
    if (transport.sessionId === undefined) {
      // Not an initialize: nothing to keep.
      await server.close().catch(() => undefined);
    }
    return response;
  };
  return Object.assign(handler, {
    close: async () => {
      const all = [...sessions.values()];
      sessions.clear();
      await Promise.all(all.map((s) => s.close()));
    },
  });
}
