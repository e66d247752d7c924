/**
 * The HTTP surface (SPEC §11) as a hono app: each route maps onto the same router methods
 * the WebSocket uses, so both answer alike. Auth runs first for every path.
 * @module
 */

import { Hono } from "hono";
import type { Context } from "hono";
import { RpcCode, RpcError } from "../protocol/json_rpc.ts";
import { checkHostAndOrigin, checkToken } from "./request_guard.ts";
import type { GatewayCore } from "./gateway_core.ts";
import type { Router } from "./router.ts";
import { serveSocket } from "./socket_session.ts";
import { openApiDocument } from "./openapi_document.ts";
import { dashboardResponse, isDashboardAsset } from "./ui/dashboard_assets.ts";
import { dashboardLoginHtml } from "./ui/dashboard_login.ts";

/** What the routes need. */
export interface HttpRoutesOptions {
  core: GatewayCore;
  router: Router;
  token: string;
  port: () => number;
  version: string;
  /** Handles `/mcp` (the gateway as an MCP server), when present. */
  mcp?: (request: Request) => Promise<Response>;
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
export function createHttpRoutes(options: HttpRoutesOptions): Hono {
  const { core, router } = options;
  const app = new Hono();
  /** Every JSON answer goes out with the config's secrets masked (issue 9, item 4). */
  const json = (_c: Context, value: unknown, status: number = 200) =>
    new Response(core.outgoingMask.stringify(value), {
      status,
      headers: { "content-type": "application/json; charset=UTF-8" },
    });

  app.use("*", async (c, next) => {
    const refusal = checkHostAndOrigin(c.req.raw, { port: options.port() });
    if (refusal) {
      core.log.warn("refused request", { path: c.req.path, reason: refusal.message });
      return json(c, { error: { message: refusal.message } }, refusal.status);
    }
    if (c.req.path !== "/health" && !isDashboardAsset(c.req.path)) {
      const allowQuery = c.req.path === "/ws" || c.req.path === "/ui";
      const denied = checkToken(c.req.raw, { token: options.token, allowQuery });
      if (denied && c.req.path === "/ui") return c.html(dashboardLoginHtml(), denied.status);
      if (denied) return json(c, { error: { message: denied.message } }, denied.status);
    }
    if (c.req.raw.body !== null) {
      // Bodies are read whole before any handler sees them, within a cap: a 200 MB upload must
      // cost 413, not the server's memory (issue 9, item 12).
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

  const call = async (c: Context, method: string, params: unknown) => {
    const gone = new AbortController();
    c.req.raw.signal.addEventListener("abort", () => gone.abort());
    try {
      const result = await router.dispatch(method, params, {
        core,
        client: "http",
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
  const withBody = (method: string) => async (c: Context) => {
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
      checkToken(c.req.raw, { token: options.token, allowQuery: false })
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
  app.get("/ui", (c) => dashboardResponse(c.req.path));
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
