import assert from "node:assert/strict";
import { z } from "zod";
import { execParams, searchParams } from "../protocol/rpc_params.ts";
import type { GatewayCore } from "./gateway_core.ts";
import { createRouter, type MethodParts } from "./method_table.ts";
import { createHttpRoutes } from "./http_routes.ts";
import { HTTP_ROUTES, openApiDocument } from "./openapi_document.ts";

type Operation = {
  requestBody?: { content: { "application/json": { schema: Record<string, unknown> } } };
  parameters?: { name: string; in: string; required: boolean; schema: Record<string, unknown> }[];
  security?: unknown[];
};

// Only the schemas are read: no handler runs, so no part of the gateway is needed.
const router = createRouter({} as MethodParts);
const document = openApiDocument("1.2.3", (m) => router.schemaOf(m)) as {
  info: { version: string };
  paths: Record<string, Record<string, Operation>>;
};

/** `METHOD /path` of every route the app registers, in OpenAPI's `{param}` form. */
function servedRoutes(): string[] {
  // Registering routes touches no core field: the handlers use it only when a request comes.
  const app = createHttpRoutes({
    core: {} as GatewayCore,
    router,
    token: "t",
    port: () => 0,
    version: "0",
  });
  return app.routes
    .filter((r) => r.path !== "*" && r.path !== "/*")
    .map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, "{$1}")}`);
}

Deno.test("openApiDocument() lists every route the HTTP app serves, and no other", () => {
  const served = new Set(servedRoutes());
  const listed = new Set(
    HTTP_ROUTES.map((r) => `${r.verb === "all" ? "ALL" : r.verb.toUpperCase()} ${r.path}`),
  );
  assert.deepEqual([...served].filter((r) => !listed.has(r)), [], "served but not documented");
  assert.deepEqual([...listed].filter((r) => !served.has(r)), [], "documented but not served");
  assert.deepEqual(
    Object.keys(document.paths).sort(),
    [...new Set(HTTP_ROUTES.map((r) => r.path))].sort(),
  );
  assert.equal(document.info.version, "1.2.3");
});

Deno.test("openApiDocument() takes request schemas from the router's zod schemas", () => {
  const { $schema: _dialect, ...exec } = z.toJSONSchema(execParams, { io: "input" });
  const body = document.paths["/exec"]?.post?.requestBody?.content["application/json"].schema;
  assert.deepEqual(body, exec);
  assert.deepEqual(body?.required, ["source"]);
  assert.equal(body?.additionalProperties, false);

  const search = document.paths["/search"]?.get?.parameters ?? [];
  const searchProperties = (z.toJSONSchema(searchParams) as {
    properties: Record<string, unknown>;
  }).properties;
  assert.deepEqual(search.map((p) => [p.name, p.required]), [
    ["q", true],
    ["namespace", false],
    ["limit", false],
    ["offset", false],
  ]);
  assert.deepEqual(search[0]?.schema, searchProperties.query);
  assert.deepEqual(search[2]?.schema, searchProperties.limit);

  const types = document.paths["/types/{ns}"]?.get?.parameters?.[0];
  assert.deepEqual(types?.schema, { type: "array", items: { type: "string" } });

  const command = document.paths["/workflow/{command}"]?.post?.parameters?.[0];
  const workflowMethods = router.names().filter((n) => n.startsWith("workflow."));
  assert.deepEqual(
    [...(command?.schema.enum as string[])].sort(),
    workflowMethods.map((n) => n.slice("workflow.".length)).sort(),
  );
});

Deno.test("openApiDocument() has no bare object schema for a request, and /health needs no token", () => {
  for (const [path, verbs] of Object.entries(document.paths)) {
    for (const [verb, operation] of Object.entries(verbs)) {
      const body = operation.requestBody?.content["application/json"].schema;
      if (body) {
        assert.ok(body.properties, `${verb} ${path}: the request body schema lists no properties`);
      }
    }
  }
  assert.deepEqual(document.paths["/health"]?.get?.security, []);
  assert.equal(document.paths["/exec"]?.post?.security, undefined);
});
