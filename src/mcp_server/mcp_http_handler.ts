/**
 * `/mcp`: the gateway's MCP server over streamable HTTP, in both protocol eras. A 2026-07-28
 * request (it carries the `_meta` envelope) is served statelessly by the SDK's
 * `createMcpHandler` — a fresh instance per request, `server/discover`, the standard-header
 * rules, `subscriptions/listen` streams fed from the gateway's events — so instances behind a
 * round-robin proxy need no sticky sessions. A 2025-era request goes to sessions as before:
 * the negotiated revision, log level and subscriptions live per session, answers stream over
 * SSE, and sessions are capped and expire when idle. `?expose=tools` serves the proxy,
 * `?expose=NS` one namespace as itself. Auth ran before this.
 * @module
 */

import {
  createMcpHandler,
  isLegacyRequest,
  type McpHttpHandler,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import type { GatewayCall, GatewayEvents } from "./gateway_call.ts";
import {
  createGatewayMcpServer,
  type GatewayMcpServerOptions,
  type HeldStateCodec,
} from "./gateway_mcp_server.ts";
import { followGatewayEvents } from "./mcp_events.ts";
import type { McpSurface } from "./mcp_surface.ts";
import { ExposureError, SurfaceCatalog } from "./surface_catalog.ts";

/** Sessions kept at once; the least recently used goes first beyond this. */
export const MAX_MCP_SESSIONS = 64;
/** A session unused this long is closed. */
export const MCP_SESSION_IDLE_MS = 30 * 60 * 1000;

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  close(): Promise<void>;
  lastUsed: number;
  exposure: string;
}

function jsonError(status: number, message: string): Response {
  return new Response(
    JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32000, message } }),
    { status, headers: { "content-type": "application/json" } },
  );
}

/** Builds the request handler; `close()` ends every session and listen stream (shutdown). */
export function createMcpHttpHandler(
  options: {
    call: GatewayCall;
    version: string;
    events?: GatewayEvents;
    /** Signs the state of a run waiting for a 2026-07-28 client; shared by every instance. */
    codec: HeldStateCodec;
    onError?: (message: string) => void;
  },
): ((request: Request) => Promise<Response>) & { close(): Promise<void> } {
  const sessions = new Map<string, Session>();
  const surfaces = new SurfaceCatalog(options.call, options.codec);
  const modern = new Map<string, { handler: McpHttpHandler; unfollow: () => void }>();

  const serverOptions = (surface: McpSurface, follow: boolean): GatewayMcpServerOptions => ({
    call: options.call,
    version: options.version,
    surface,
    codec: options.codec,
    ...(follow && options.events ? { events: options.events } : {}),
    ...(options.onError ? { onError: options.onError } : {}),
  });
  const listChanged = options.events !== undefined;

  /** The stateless 2026-07-28 endpoint of one exposure, its listen streams fed by events. */
  const modernHandler = (key: string, surface: McpSurface): McpHttpHandler => {
    const known = modern.get(key);
    if (known) return known.handler;
    const handler = createMcpHandler(
      () => createGatewayMcpServer(serverOptions(surface, false), "modern", listChanged).server,
      { legacy: "reject", onerror: (error) => options.onError?.(error.message) },
    );
    const unfollow = options.events
      ? followGatewayEvents(options.events, surface, {
        toolsChanged: () => handler.notify.toolsChanged(),
        resourcesChanged: () => handler.notify.resourcesChanged(),
        promptsChanged: () => handler.notify.promptsChanged(),
        resourceUpdated: (uri) => handler.notify.resourceUpdated(uri),
      })
      : () => undefined;
    modern.set(key, { handler, unfollow });
    return handler;
  };

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

  /** A 2025-era request: to its session, or an `initialize` opening one. */
  const serveLegacy = async (
    request: Request,
    key: string,
    surface: McpSurface,
  ): Promise<Response> => {
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId) {
      const session = sessions.get(sessionId);
      if (!session) {
        return jsonError(
          404,
          `Unknown or expired MCP session "${sessionId}": initialize a new session`,
        );
      }
      if (session.exposure !== key) {
        return jsonError(
          400,
          `MCP session "${sessionId}" was opened with ?expose=${session.exposure}`,
        );
      }
      session.lastUsed = Date.now();
      return await session.transport.handleRequest(request);
    }
    if (request.method !== "POST") {
      return jsonError(400, "Bad request: no mcp-session-id header; POST an initialize first");
    }
    await evict();
    const { server } = createGatewayMcpServer(serverOptions(surface, true), "legacy", listChanged);
    const transport: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (id: string) => {
          sessions.set(id, {
            transport,
            exposure: key,
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

  const handler = async (request: Request): Promise<Response> => {
    const exposure = new URL(request.url).searchParams.get("expose") ?? "code";
    let surface: McpSurface;
    try {
      surface = await surfaces.get(exposure);
    } catch (error) {
      if (error instanceof ExposureError) return jsonError(400, error.message);
      throw error;
    }
    if (await isLegacyRequest(request)) return await serveLegacy(request, exposure, surface);
    return await modernHandler(exposure, surface).fetch(request);
  };
  return Object.assign(handler, {
    close: async () => {
      const all = [...sessions.values()];
      sessions.clear();
      const endpoints = [...modern.values()];
      modern.clear();
      for (const endpoint of endpoints) endpoint.unfollow();
      await Promise.all([
        ...all.map((s) => s.close()),
        ...endpoints.map((e) => e.handler.close()),
      ]);
    },
  });
}
