/**
 * The HTTP surface as a hono app, served on two listeners: the loopback TCP port (browsers,
 * MCP clients, other programs: Host, Origin and the token are checked on every path but
 * `/health`) and the data dir's unix socket (the user's own CLI: reaching the socket is the
 * credential, so it needs no token; a request carrying an `Origin` is refused there, since no
 * browser should ever reach it). Each route maps onto the same router methods the WebSocket
 * uses, so all answer alike; `POST /rpc` answers one JSON-RPC request with JSON lines (its
 * notifications, then its response), which is how the CLI talks to its server.
 * @module
 */

import { Hono } from "hono";
import type { Context } from "hono";
import { RpcCode, RpcError, rpcError } from "../protocol/json_rpc.ts";
import { checkHostAndOrigin, checkToken } from "./request_guard.ts";
import type { GatewayCore } from "./gateway_core.ts";
import type { Router } from "./router.ts";
import { normaliseMessage, serveSocket } from "./socket_session.ts";
import { rpcStream } from "./rpc_stream.ts";
import { openApiDocument } from "./openapi_document.ts";
import { dashboardResponse, isDashboardAsset } from "./ui/dashboard_assets.ts";
import { dashboardLoginHtml } from "./ui/dashboard_login.ts";
import { DashboardSessions } from "./ui/dashboard_sessions.ts";

/** What the routes need. */
export interface HttpRoutesOptions {
  core: GatewayCore;
  router: Router;
  token: string;
  port: () => number;
  version: string;
  /** Handles `/mcp` (the gateway as an MCP server), when present. */
  mcp?: (request: Request) => Promise<Response>;
  /** Stops the server (`POST /stop`, what `gateway stop` sends). */
  requestStop?: () => void;
  /** The dashboard's sign-in codes and sessions (one set per server). */
  sessions?: DashboardSessions;
}

/** Which listener a request came in on; passed as the app's environment. */
export type Listener = "socket" | "tcp";

/** What the app's `fetch` is given beside the request. */
export interface RouteBindings {
  via: Listener;
}

function statusOf(error: RpcError): 400 | 404 | 422 | 500 | 503 {
  switch (error.code) {
    case RpcCode.InvalidParams:
    case RpcCode.InvalidRequest:
    case RpcCode.ParseError:
      return 400;
    case RpcCode.MethodNotFound:
      return 404;
    case RpcCode.GatewayError:
      return 422;
    case RpcCode.ShuttingDown:
      return 503;
    default:
      return 500;
  }
}

/** Largest request body accepted, in bytes (a run's stdin and source fit well within it). */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

/**
 * Reads `request`'s body up to `maxBytes` and returns an equal request with that body in
 * memory, or null when the body (declared or actual) is larger.
 */
async function readBoundedBody(request: Request, maxBytes: number): Promise<Request | null> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > maxBytes) {
    await request.body?.cancel().catch(() => undefined);
    return null;
  }
  const reader = request.body!.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.length;
  }
  return new Request(request, { body });
}

/** Builds the app. */
export function createHttpRoutes(
  options: HttpRoutesOptions,
): Hono<{ Bindings: RouteBindings }> {
  const { core, router } = options;
  const sessions = options.sessions ?? new DashboardSessions();
  const app = new Hono<{ Bindings: RouteBindings }>();
  /** Whether the request carries a live dashboard session (the page and its WebSocket only). */
  const hasSession = (request: Request) => {
    const session = sessions.sessionOf(request, options.port());
    return session !== null && sessions.isSession(session);
  };
  /** Every JSON answer goes out with the config's secrets masked. */
  const json = (_c: Context, value: unknown, status: number = 200) =>
    new Response(core.outgoingMask.stringify(value), {
      status,
      headers: { "content-type": "application/json; charset=UTF-8" },
    });

  app.use("*", async (c, next) => {
    if (c.env.via === "socket") {
      if (c.req.header("origin") !== undefined) {
        return json(c, {
          error: { message: "Refused: the gateway's local socket takes no browser requests" },
        }, 403);
      }
    } else {
      const refusal = checkHostAndOrigin(c.req.raw, { port: options.port() });
      if (refusal) {
        core.log.warn("refused request", { path: c.req.path, reason: refusal.message });
        return json(c, { error: { message: refusal.message } }, refusal.status);
      }
    }
    const open = c.req.path === "/health" || c.req.path === "/ui/login" ||
      isDashboardAsset(c.req.path);
    if (c.env.via === "tcp" && !open) {
      const page = c.req.path === "/ws" || c.req.path === "/ui";
      const denied = checkToken(c.req.raw, { token: options.token, allowQuery: page });
      if (denied && !(page && hasSession(c.req.raw))) {
        if (c.req.path === "/ui") return c.html(dashboardLoginHtml(), denied.status);
        return json(c, { error: { message: denied.message } }, denied.status);
      }
    }
    if (c.req.raw.body !== null) {
      // Bodies are read whole before any handler sees them, within a cap: a 200 MB upload must
      // cost 413, not the server's memory.
      const bounded = await readBoundedBody(c.req.raw, MAX_BODY_BYTES);
      if (bounded === null) {
        return json(c, {
          error: {
            message: `Request body is larger than ${MAX_BODY_BYTES} bytes: send less ` +
              `(large inputs belong in a file the script may read)`,
          },
        }, 413);
      }
      c.req.raw = bounded;
    }
    await next();
  });

  const call = async (c: Context<{ Bindings: RouteBindings }>, method: string, params: unknown) => {
    const gone = new AbortController();
    c.req.raw.signal.addEventListener("abort", () => gone.abort());
    try {
      const result = await router.dispatch(method, params, {
        client: c.env.via === "socket" ? "cli" : "http",
        signal: gone.signal,
      });
      return json(c, result as Record<string, unknown>);
    } catch (error) {
      const rpc = error instanceof RpcError
        ? error
        : new RpcError(RpcCode.InternalError, String(error));
      return json(c, { error: rpc.toJSON() }, statusOf(rpc));
    }
  };
  const body = async (c: Context): Promise<unknown> => {
    try {
      return await c.req.json();
    } catch {
      throw new RpcError(RpcCode.ParseError, "Parse error: the request body is not JSON");
    }
  };
  const withBody = (method: string) => async (c: Context<{ Bindings: RouteBindings }>) => {
    let params: unknown;
    try {
      params = await body(c);
    } catch (error) {
      return json(c, { error: (error as RpcError).toJSON() }, 400);
    }
    return call(c, method, params);
  };

  // Without the token, only "up": the root, pid and namespaces are for the token holder.
  app.get(
    "/health",
    (c) =>
      c.env.via === "tcp" && checkToken(c.req.raw, { token: options.token, allowQuery: false })
        ? json(c, { ok: true })
        : json(c, {
          ok: true,
          version: options.version,
          pid: Deno.pid,
          root: core.paths.root.dir,
          namespaces: core.namespaceList(),
          ...core.healthExtras(),
        }),
  );
  app.post("/rpc", async (c) => {
    let message: unknown;
    try {
      message = await c.req.json();
    } catch {
      return json(c, rpcError(null, rpcParseError().toJSON()), 400);
    }
    const incoming = normaliseMessage(message);
    if ("error" in incoming) return json(c, rpcError(incoming.id, incoming.error.toJSON()), 400);
    if (incoming.lootbox || incoming.id === undefined) {
      const refusal = new RpcError(
        RpcCode.InvalidRequest,
        'Invalid request: /rpc takes one JSON-RPC 2.0 request with an "id"',
      );
      return json(c, rpcError(incoming.id ?? null, refusal.toJSON()), 400);
    }
    return rpcStream({
      core,
      router,
      client: c.env.via === "socket" ? "cli" : "http",
      signal: c.req.raw.signal,
    }, { ...incoming, id: incoming.id });
  });
  app.post("/stop", (c) => {
    if (!options.requestStop) {
      return json(c, { error: { message: "This gateway cannot be stopped over HTTP" } }, 404);
    }
    options.requestStop();
    return json(c, { stopping: true, pid: Deno.pid });
  });
  app.get("/namespaces", (c) => call(c, "namespaces", {}));
  app.get("/types", (c) => call(c, "types", {}));
  app.get("/types/:ns", (c) => call(c, "types", { namespaces: c.req.param("ns").split(",") }));
  app.get("/catalog", (c) => {
    const budget = c.req.query("budget");
    const since = c.req.query("since");
    return call(c, "catalog", {
      ...(budget ? { budget: Number(budget) } : {}),
      ...(since ? { since } : {}),
    });
  });
  app.get("/search", (c) => {
    const q = c.req.query();
    return call(c, "search", {
      query: q.q ?? "",
      ...(q.namespace ? { namespace: q.namespace } : {}),
      ...(q.limit ? { limit: Number(q.limit) } : {}),
      ...(q.offset ? { offset: Number(q.offset) } : {}),
    });
  });
  app.get("/describe", (c) => {
    const q = c.req.query();
    return call(c, "describe", {
      path: q.path ?? "",
      ...(q.depth ? { depth: Number(q.depth) } : {}),
      ...(q.full === "true" || q.full === "1" ? { full: true } : {}),
    });
  });
  app.get("/scripts", (c) => call(c, "scripts", {}));
  app.post("/exec", withBody("exec"));
  app.post("/run", withBody("run"));
  app.post("/call", withBody("call"));
  app.post("/cancel", withBody("cancel"));
  app.post("/wait", withBody("wait"));
  app.get("/history", (c) => {
    const q = c.req.query();
    return call(c, "history.list", {
      ...(q.limit ? { limit: Number(q.limit) } : {}),
      ...(q.offset ? { offset: Number(q.offset) } : {}),
      ...(q.failed === "true" ? { failed: true } : {}),
    });
  });
  app.get("/approvals", (c) => call(c, "approval.list", {}));
  app.post("/approvals/respond", withBody("approval.respond"));
  app.get("/history/:id", (c) => call(c, "history.get", { id: c.req.param("id") }));
  app.post("/workflow/:command", async (c) => {
    let params: unknown;
    try {
      params = await body(c);
    } catch (error) {
      return json(c, { error: (error as RpcError).toJSON() }, 400);
    }
    return call(c, `workflow.${c.req.param("command")}`, params);
  });
  app.get(
    "/openapi.json",
    (c) => json(c, openApiDocument(options.version, (m) => router.schemaOf(m))),
  );
  app.get("/ui", (c) => {
    // The token in the address (an older `gateway ui`, a bookmark) becomes a session at once,
    // and the address loses it: it would stay in the browser's history otherwise.
    if (c.req.query("token") !== undefined) {
      return signedIn(sessions.cookie(sessions.open(), options.port()));
    }
    return dashboardResponse(c.req.path);
  });
  app.get("/ui/login", (c) => {
    const session = sessions.exchange(c.req.query("code") ?? "");
    if (session === null) {
      return c.html(
        dashboardLoginHtml(
          "That sign-in address was used already or is over a minute old: run gateway ui again.",
        ),
        401,
      );
    }
    return signedIn(sessions.cookie(session, options.port()));
  });
  app.post("/ui/code", (c) => json(c, sessions.issueCode()));
  app.get("/ui/:asset", (c) => dashboardResponse(c.req.path));
  app.get("/favicon.ico", (c) => dashboardResponse(c.req.path));
  app.all("/mcp", (c) => {
    if (!options.mcp) return json(c, { error: { message: "MCP endpoint is not enabled" } }, 404);
    return options.mcp(c.req.raw);
  });
  app.get("/ws", (c) => {
    if (c.req.header("upgrade")?.toLowerCase() !== "websocket") {
      return json(c, { error: { message: "Expected a WebSocket upgrade on /ws" } }, 400);
    }
    const { socket, response } = Deno.upgradeWebSocket(c.req.raw, { idleTimeout: 30 });
    serveSocket(socket, { core, router });
    return response;
  });
  app.notFound((c) =>
    json(c, { error: { message: `No route ${c.req.method} ${c.req.path}` } }, 404)
  );
  app.onError((error, c) => {
    core.log.error("http handler failed", { path: c.req.path, error: String(error) });
    return json(c, { error: { message: `Internal error: ${error.message}` } }, 500);
  });
  return app;
}

/** Sends the browser to the dashboard with its new session cookie. */
function signedIn(cookie: string): Response {
  return new Response(null, {
    status: 303,
    headers: { location: "/ui", "set-cookie": cookie, "cache-control": "no-store" },
  });
}

function rpcParseError(): RpcError {
  return new RpcError(RpcCode.ParseError, "Parse error: the request body is not JSON");
}
