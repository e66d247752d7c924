import assert from "node:assert/strict";
import { join } from "node:path";
import { buildApiCatalogue } from "./build_api_catalogue.ts";
import { loadApiDocument } from "./load_api_document.ts";

const PETS_YAML = `openapi: 3.0.3
info: { title: Pets, version: "1" }
servers: [{ url: /api }]
paths:
  /pets:
    get:
      operationId: listPets
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: { type: array, items: { $ref: "./schemas.yaml#/Pet" } }
`;

const SCHEMAS_YAML = `Pet:
  type: object
  required: [name]
  properties:
    name: { type: string }
    parent: { $ref: "#/Pet" }
`;

Deno.test("loadApiDocument() caches a remote document with its ETag and resolves its external $refs", async () => {
  const cacheDir = await Deno.makeTempDir({ prefix: "gateway-api-cache-" });
  const seen: Array<{ path: string; ifNoneMatch: string | null }> = [];
  let up = true;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    const path = new URL(request.url).pathname;
    seen.push({ path, ifNoneMatch: request.headers.get("if-none-match") });
    if (!up) return new Response("down", { status: 503 });
    if (path === "/specs/schemas.yaml") return new Response(SCHEMAS_YAML);
    if (request.headers.get("if-none-match") === '"v1"') return new Response(null, { status: 304 });
    return new Response(PETS_YAML, {
      headers: { etag: '"v1"', "content-type": "application/yaml" },
    });
  });
  const url = `http://127.0.0.1:${server.addr.port}/specs/pets.yaml`;
  try {
    const first = await loadApiDocument(url, { baseDir: "/", cacheDir });
    assert.deepEqual(first.warnings, []);
    const built = buildApiCatalogue(first.document, { include: [], exclude: [], writes: "ask" });
    assert.equal(built.catalogue.tools[0]?.originalName, "listPets");
    // The external schema was inlined; its self-reference stays a named, recursive type.
    assert.match(built.catalogue.declarations, /parent\?: /);
    assert.doesNotMatch(built.catalogue.warnings.join("\n"), /points nowhere/);

    const second = await loadApiDocument(url, { baseDir: "/", cacheDir });
    assert.deepEqual(second.document.paths, first.document.paths);
    assert.equal(seen.filter((s) => s.path === "/specs/pets.yaml")[1]?.ifNoneMatch, '"v1"');

    up = false;
    const offline = await loadApiDocument(url, { baseDir: "/", cacheDir });
    assert.match(
      offline.warnings[0] ?? "",
      /Cannot fetch API document ".*pets\.yaml" \(HTTP 503 Service Unavailable\): using the copy cached at/,
    );
  } finally {
    await server.shutdown();
    await Deno.remove(cacheDir, { recursive: true });
  }
});

Deno.test("loadApiDocument() reads a relative YAML file with a file $ref beside it", async () => {
  const root = await Deno.makeTempDir({ prefix: "gateway-api-root-" });
  try {
    await Deno.mkdir(join(root, "specs"));
    await Deno.writeTextFile(join(root, "specs/pets.yaml"), PETS_YAML);
    await Deno.writeTextFile(join(root, "specs/schemas.yaml"), SCHEMAS_YAML);
    const loaded = await loadApiDocument("./specs/pets.yaml", { baseDir: root, cacheDir: "/x" });
    assert.equal(loaded.source, join(root, "specs/pets.yaml"));
    const built = buildApiCatalogue(loaded.document, { include: [], exclude: [], writes: "ask" });
    assert.equal(built.catalogue.tools.length, 1);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("loadApiDocument() names the document and the problem when it is not an API document", async () => {
  const root = await Deno.makeTempDir({ prefix: "gateway-api-root-" });
  try {
    await Deno.writeTextFile(join(root, "bad.json"), '{ "openapi": ');
    await Deno.writeTextFile(join(root, "other.yaml"), "name: not an api\n");
    await assert.rejects(
      loadApiDocument("bad.json", { baseDir: root, cacheDir: "/x" }),
      new RegExp(`Cannot parse API document "${root}/bad\\.json"`),
    );
    await assert.rejects(
      loadApiDocument("other.yaml", { baseDir: root, cacheDir: "/x" }),
      /it has neither "openapi": "3\.x" nor "swagger": "2\.0"/,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
