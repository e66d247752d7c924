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

Deno.test("loadApiDocument() reads a local document's file $refs only inside the root, symlinks resolved", async () => {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "gateway-api-reach-" }));
  const root = join(base, "root");
  try {
    await Deno.mkdir(join(root, "specs"), { recursive: true });
    await Deno.writeTextFile(join(base, "outside.yaml"), "Pet: { description: OUTSIDE-SECRET }\n");
    await Deno.symlink(join(base, "outside.yaml"), join(root, "specs/linked.yaml"));
    for (
      const ref of ["../../outside.yaml#/Pet", "./linked.yaml#/Pet", `${base}/outside.yaml#/Pet`]
    ) {
      await Deno.writeTextFile(
        join(root, "specs/pets.yaml"),
        PETS_YAML.replace("./schemas.yaml#/Pet", ref),
      );
      const loaded = await loadApiDocument("specs/pets.yaml", { baseDir: root, cacheDir: "/x" });
      assert.doesNotMatch(JSON.stringify(loaded.document), /OUTSIDE-SECRET/, ref);
      assert.match(
        loaded.warnings.join("\n"),
        /is outside the root .*: a local API document's \$refs read only files inside the root/,
        ref,
      );
    }
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("loadApiDocument() resolves a remote document's $refs only at its own origin, and drops a bundle made under older rules", async () => {
  const cacheDir = await Deno.makeTempDir({ prefix: "gateway-api-cache-" });
  const secret = await Deno.makeTempFile({ suffix: ".yaml" });
  await Deno.writeTextFile(secret, "Pet: { description: LOCAL-SECRET }\n");
  const other = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response("Pet: { description: OTHER-ORIGIN }\n"),
  );
  let document = "";
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) =>
      new URL(request.url).pathname === "/specs/schemas.yaml"
        ? new Response(SCHEMAS_YAML)
        : new Response(document, { headers: { etag: '"v1"' } }),
  );
  const url = `http://127.0.0.1:${server.addr.port}/specs/pets.yaml`;
  try {
    for (
      const ref of [
        `file://${secret}#/Pet`,
        secret,
        `http://127.0.0.1:${other.addr.port}/s.yaml#/Pet`,
      ]
    ) {
      document = PETS_YAML.replace("./schemas.yaml#/Pet", ref);
      const loaded = await loadApiDocument(url, { baseDir: "/", cacheDir });
      assert.doesNotMatch(JSON.stringify(loaded.document), /LOCAL-SECRET|OTHER-ORIGIN/, ref);
      // A bare path is a path on the document's own server, not a local file.
      if (ref === secret) continue;
      assert.match(
        loaded.warnings.join("\n"),
        /a remote API document's \$refs (read no local files|resolve only at its own origin)/,
        ref,
      );
    }
    // A copy bundled by an older gateway (with what it read) is never used, and is rewritten.
    document = PETS_YAML;
    const first = await loadApiDocument(url, { baseDir: "/", cacheDir });
    assert.deepEqual(first.warnings, []);
    const [file] = [...Deno.readDirSync(join(cacheDir, "apis"))].map((e) =>
      join(cacheDir, "apis", e.name)
    );
    const entry = JSON.parse(await Deno.readTextFile(file!));
    delete entry.refRules;
    entry.bundled = JSON.stringify({ ...JSON.parse(entry.bundled), leaked: "LOCAL-SECRET" });
    await Deno.writeTextFile(file!, JSON.stringify(entry));
    const again = await loadApiDocument(url, { baseDir: "/", cacheDir });
    assert.doesNotMatch(JSON.stringify(again.document), /LOCAL-SECRET/);
    assert.doesNotMatch(await Deno.readTextFile(file!), /LOCAL-SECRET/);
  } finally {
    await server.shutdown();
    await other.shutdown();
    await Deno.remove(cacheDir, { recursive: true });
    await Deno.remove(secret);
  }
});
