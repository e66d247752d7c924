/**
 * `GET /openapi.json`: a machine-readable map of the HTTP routes, so HTTP clients need not read
 * the source. Kept beside the routes it describes.
 * @module
 */

const JSON_BODY = { content: { "application/json": { schema: { type: "object" } } } };
const OK = { "200": { description: "OK", ...JSON_BODY } };

function get(summary: string, parameters: unknown[] = []) {
  return { get: { summary, parameters, responses: OK } };
}

function post(summary: string) {
  return { post: { summary, requestBody: JSON_BODY, responses: OK } };
}

/** The OpenAPI 3.1 document of the gateway's HTTP interface. */
export function openApiDocument(version: string): Record<string, unknown> {
  const q = (name: string, required = false) => ({
    name,
    in: "query",
    required,
    schema: { type: "string" },
  });
  return {
    openapi: "3.1.0",
    info: { title: "gateway", version },
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
    },
    security: [{ bearer: [] }],
    paths: {
      "/health": {
        get: { summary: "Per-namespace status (no token needed)", security: [], responses: OK },
      },
      "/namespaces": get("Namespaces with status and tool counts"),
      "/types": get("TypeScript declarations of the script globals"),
      "/types/{ns}": get("TypeScript of some namespaces (comma-separated)", [
        { name: "ns", in: "path", required: true, schema: { type: "string" } },
      ]),
      "/catalog": get("Budgeted catalogue", [q("budget")]),
      "/search": get("Ranked tools and scripts", [
        q("q", true),
        q("namespace"),
        q("limit"),
        q("offset"),
      ]),
      "/describe": get("One tool or script in full", [q("path", true)]),
      "/scripts": get("Named scripts"),
      "/exec": post("Run inline TypeScript; answers the run document"),
      "/run": post("Run a named script"),
      "/call": post("Call one tool directly"),
      "/cancel": post("Cancel a run"),
      "/wait": post("Wait for a yielded run"),
      "/history": get("Recent runs", [q("limit"), q("offset"), q("failed")]),
      "/history/{id}": get("One run in full", [
        { name: "id", in: "path", required: true, schema: { type: "string" } },
      ]),
      "/approvals": get("Tool calls an ask policy holds, waiting for an answer"),
      "/approvals/respond": post("Allow or deny the held calls of a run: {runId, allow, by?}"),
      "/workflow/{command}": post("Workflow command: start, step, status, reset, abort, list, log"),
    },
  };
}
