/**
 * `GET /openapi.json`: a machine-readable map of the HTTP routes, so HTTP clients need not read
 * the source. Request schemas come from the zod schemas the router validates with, so the
 * document cannot drift from what the server accepts; `openapi_document_test.ts` checks that
 * every route the app serves is listed here and the other way round.
 * @module
 */

import { z } from "zod";

/** Where an RPC param comes from in an HTTP request other than a JSON body. */
export interface RouteParameter {
  /** The name in the URL (`q`, `ns`). */
  name: string;
  in: "query" | "path";
  /** The RPC param it fills (`query`, `namespaces`); a comma-separated path param fills an array. */
  field?: string;
  /** Its schema, when it fills no RPC param (it picks the method or the file). */
  schema?: Record<string, unknown>;
}

/** One HTTP route of `http_routes.ts` and the router method it maps onto. */
export interface HttpRoute {
  /** `get`, `post`, or `all` (every verb, as `/mcp`). */
  verb: "get" | "post" | "all";
  /** OpenAPI path template (`/types/{ns}`). */
  path: string;
  summary: string;
  /** The router method answering it; its params schema becomes the request schema. */
  method?: string;
  /** URL parameters that fill the method's params (none: the method takes none). */
  params?: readonly RouteParameter[];
  /** The method's params arrive as the JSON body. @default {false} */
  body?: boolean;
  /** Served without the token. @default {false} */
  public?: boolean;
  /** What the answer is when it is not JSON. */
  produces?: "text/html" | "image/svg+xml" | "websocket" | "application/x-ndjson";
  /** The JSON body's schema, for a route that maps onto no one method. */
  request?: Record<string, unknown>;
}

/** A JSON-RPC 2.0 request, as `POST /rpc` takes it. */
const RPC_REQUEST = {
  type: "object",
  properties: {
    jsonrpc: { const: "2.0" },
    id: { type: ["string", "number", "null"] },
    method: { type: "string" },
    params: {},
  },
  required: ["jsonrpc", "id", "method"],
};

const query = (name: string, field = name): RouteParameter => ({ name, in: "query", field });
const path = (name: string, field = name): RouteParameter => ({ name, in: "path", field });
const WORKFLOW_COMMANDS = ["start", "step", "status", "reset", "abort", "list", "log"];

/** Every HTTP route the gateway serves, in the order `http_routes.ts` registers them. */
export const HTTP_ROUTES: readonly HttpRoute[] = [
  { verb: "get", path: "/health", summary: "Per-namespace status (no token needed)", public: true },
  {
    verb: "post",
    path: "/rpc",
    summary:
      "One JSON-RPC 2.0 request (any router method), answered in JSON lines: its notifications, then its response",
    produces: "application/x-ndjson",
    request: RPC_REQUEST,
  },
  { verb: "post", path: "/stop", summary: "Stop the server (what gateway stop sends)" },
  {
    verb: "get",
    path: "/namespaces",
    summary: "Namespaces with status and tool counts",
    method: "namespaces",
  },
  {
    verb: "get",
    path: "/types",
    summary: "TypeScript declarations of the script globals",
    method: "types",
  },
  {
    verb: "get",
    path: "/types/{ns}",
    summary: "TypeScript of some namespaces (comma-separated)",
    method: "types",
    params: [path("ns", "namespaces")],
  },
  {
    verb: "get",
    path: "/catalog",
    summary: "Budgeted catalogue",
    method: "catalog",
    params: [query("budget")],
  },
  {
    verb: "get",
    path: "/search",
    summary: "Ranked tools and scripts",
    method: "search",
    params: [query("q", "query"), query("namespace"), query("limit"), query("offset")],
  },
  {
    verb: "get",
    path: "/describe",
    summary: "One tool or script in full",
    method: "describe",
    params: [query("path")],
  },
  { verb: "get", path: "/scripts", summary: "Named scripts", method: "scripts" },
  {
    verb: "post",
    path: "/exec",
    summary: "Run inline TypeScript; answers the run document",
    method: "exec",
    body: true,
  },
  { verb: "post", path: "/run", summary: "Run a named script", method: "run", body: true },
  { verb: "post", path: "/call", summary: "Call one tool directly", method: "call", body: true },
  { verb: "post", path: "/cancel", summary: "Cancel a run", method: "cancel", body: true },
  { verb: "post", path: "/wait", summary: "Wait for a yielded run", method: "wait", body: true },
  {
    verb: "get",
    path: "/history",
    summary: "Recent runs",
    method: "history.list",
    params: [query("limit"), query("offset"), query("failed")],
  },
  {
    verb: "get",
    path: "/approvals",
    summary: "Tool calls an ask policy holds, waiting for an answer",
    method: "approval.list",
  },
  {
    verb: "post",
    path: "/approvals/respond",
    summary: "Allow or deny the held calls of a run",
    method: "approval.respond",
    body: true,
  },
  {
    verb: "get",
    path: "/history/{id}",
    summary: "One run in full",
    method: "history.get",
    params: [path("id")],
  },
  {
    verb: "post",
    path: "/workflow/{command}",
    summary: "Workflow command: start, step, status, reset, abort, list, log",
    method: "workflow.start",
    params: [{ name: "command", in: "path", schema: { type: "string", enum: WORKFLOW_COMMANDS } }],
    body: true,
  },
  { verb: "get", path: "/openapi.json", summary: "This document" },
  {
    verb: "get",
    path: "/ui",
    summary: "The dashboard (a session cookie; a token in the query becomes one)",
    produces: "text/html",
  },
  {
    verb: "get",
    path: "/ui/login",
    summary: "Trade a one-use sign-in code for a dashboard session cookie",
    params: [{ name: "code", in: "query", schema: { type: "string" } }],
    public: true,
    produces: "text/html",
  },
  {
    verb: "post",
    path: "/ui/code",
    summary: "A one-use dashboard sign-in code, good for a minute (what gateway ui asks for)",
  },
  {
    verb: "get",
    path: "/ui/{asset}",
    summary: "The dashboard's static files",
    params: [{ name: "asset", in: "path", schema: { type: "string" } }],
    public: true,
    produces: "text/html",
  },
  {
    verb: "get",
    path: "/favicon.ico",
    summary: "The dashboard's icon (no token needed)",
    public: true,
    produces: "image/svg+xml",
  },
  { verb: "all", path: "/mcp", summary: "The gateway as an MCP server (streamable HTTP)" },
  {
    verb: "get",
    path: "/ws",
    summary: "WebSocket JSON-RPC (every router method)",
    produces: "websocket",
  },
];

const ERROR_BODY = {
  type: "object",
  properties: {
    error: {
      type: "object",
      properties: {
        code: { type: "integer" },
        message: { type: "string" },
        data: { type: "object", properties: { kind: { type: "string" } } },
      },
      required: ["message"],
    },
  },
  required: ["error"],
};

/** The JSON Schema (2020-12, as OpenAPI 3.1 uses) of what a method accepts. */
function inputSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    io: "input",
    unrepresentable: "any",
  }) as Record<string, unknown>;
  return rest;
}

function methodSchema(
  route: HttpRoute,
  schemaOf: (method: string) => z.ZodType | undefined,
): Record<string, unknown> {
  const schema = schemaOf(route.method ?? "");
  if (!schema) {
    throw new Error(`HTTP route ${route.path} maps onto unknown method "${route.method}"`);
  }
  return inputSchema(schema);
}

function operation(
  route: HttpRoute,
  schemaOf: (method: string) => z.ZodType | undefined,
): Record<string, unknown> {
  const json = (schema: unknown) => ({ content: { "application/json": { schema } } });
  const ok = route.produces === "websocket"
    ? { "101": { description: "Switching to the WebSocket protocol" } }
    : route.produces !== undefined
    ? {
      "200": { description: "OK", content: { [route.produces]: { schema: { type: "string" } } } },
    }
    : { "200": { description: "OK", ...json({ type: "object" }) } };
  const op: Record<string, unknown> = {
    summary: route.summary,
    ...(route.method ? { operationId: route.method } : {}),
    ...(route.public ? { security: [] } : {}),
    responses: {
      ...ok,
      ...(route.public
        ? {}
        : { "401": { description: "Missing or wrong token", ...json(ERROR_BODY) } }),
      ...(route.method ? { "400": { description: "Invalid params", ...json(ERROR_BODY) } } : {}),
    },
  };
  const input = route.method ? methodSchema(route, schemaOf) : { properties: {} };
  if (route.body) op.requestBody = { required: true, ...json(input) };
  if (route.request) op.requestBody = { required: true, ...json(route.request) };
  if (route.params) {
    const properties = (input.properties ?? {}) as Record<string, Record<string, unknown>>;
    const required = new Set((input.required ?? []) as string[]);
    op.parameters = route.params.map((p) => {
      const schema = p.schema ?? (p.field === undefined ? undefined : properties[p.field]);
      if (!schema) {
        throw new Error(
          `HTTP route ${route.path}: method "${route.method}" has no param "${p.field}"`,
        );
      }
      return {
        name: p.name,
        in: p.in,
        required: p.in === "path" || (p.field !== undefined && required.has(p.field)),
        schema,
        // `/types/kv,fs`: a comma-separated list.
        ...(schema.type === "array" ? { style: "simple", explode: false } : {}),
      };
    });
  }
  return op;
}

/**
 * The OpenAPI 3.1 document of the gateway's HTTP interface; `schemaOf` gives the params schema
 * the router validates each method with (`Router.schemaOf`).
 */
export function openApiDocument(
  version: string,
  schemaOf: (method: string) => z.ZodType | undefined,
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of HTTP_ROUTES) {
    const verbs = route.verb === "all" ? ["get", "post", "delete"] : [route.verb];
    for (const verb of verbs) {
      (paths[route.path] ??= {})[verb] = operation(route, schemaOf);
    }
  }
  return {
    openapi: "3.1.0",
    info: { title: "gateway", version },
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
    },
    security: [{ bearer: [] }],
    paths,
  };
}
