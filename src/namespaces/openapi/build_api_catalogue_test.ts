import assert from "node:assert/strict";
import { join } from "node:path";
import { GITHUB_SPEC, OAS_EXAMPLES } from "../../../test/support/prism_server.ts";
import { buildApiCatalogue } from "./build_api_catalogue.ts";
import { loadApiDocument } from "./load_api_document.ts";

const BUILD = { include: [], exclude: [], writes: "ask" } as const;

async function realDocuments(): Promise<string[]> {
  const files: string[] = [];
  for (const version of ["2.0", "3.0", "3.1"]) {
    const dir = join(OAS_EXAMPLES, version, "json");
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isFile && entry.name.endsWith(".json")) files.push(join(dir, entry.name));
    }
  }
  // GitHub's documents: the public API, Enterprise Cloud (whose one external $ref names a file
  // the package does not ship) and an Enterprise Server release.
  const github = join(GITHUB_SPEC, "..");
  return [...files.sort(), GITHUB_SPEC, join(github, "ghec.json"), join(github, "ghes-3.19.json")];
}

/** Type-checks declarations the way scripts see them: inside `declare namespace`. */
async function denoCheck(sources: Record<string, string>): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "gateway-openapi-check-" });
  try {
    const files: string[] = [];
    for (const [name, text] of Object.entries(sources)) {
      const file = join(dir, `${name}.ts`);
      await Deno.writeTextFile(file, text);
      files.push(file);
    }
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["check", "--quiet", "--no-config", ...files],
      stdout: "piped",
      stderr: "piped",
    }).output();
    return out.success ? "" : new TextDecoder().decode(out.stderr);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("buildApiCatalogue() names every operation of real documents and their types pass deno check", async () => {
  const sources: Record<string, string> = {};
  let checked = 0;
  for (const file of await realDocuments()) {
    const loaded = await loadApiDocument(file, { baseDir: "/", cacheDir: "/nonexistent" });
    const built = buildApiCatalogue(loaded.document, BUILD);
    if (file.endsWith("ghec.json")) {
      assert.match(
        loaded.warnings.join("\n"),
        /loosened: \$ref ".*server-statistics-actions\.yaml.*" cannot be read/,
      );
    }
    const names = built.catalogue.tools.map((t) => t.originalName);
    assert.equal(new Set(names).size, names.length, `${file}: tool names are unique`);
    for (const name of names) assert.match(name, /^[A-Za-z_$][A-Za-z0-9_$]*$/, file);
    // Each operation is a tool, or a note says why it is not.
    const leftOut = built.catalogue.warnings.filter((w) => w.startsWith("left out ")).length;
    assert.equal(names.length + leftOut, built.total, `${file}: ${built.catalogue.warnings}`);
    const calls = built.catalogue.tools.map((t, i) =>
      `declare const t${i}: (${
        t.inputType ? `input: api.${t.inputType}` : ""
      }) => Promise<api.${t.outputType}>;`
    ).join("\n");
    const stem = file.split("/").slice(-3).join("_").replace(/[^A-Za-z0-9_]/g, "_");
    sources[stem] =
      `declare namespace api {\n${built.catalogue.declarations}\n}\n${calls}\nexport {};\n`;
    checked++;
  }
  assert.ok(checked > 40, `checked ${checked} documents`);
  assert.equal(await denoCheck(sources), "");
});

Deno.test("buildApiCatalogue() gives GitHub's repos/list-for-org typed parameters and answer", async () => {
  const { document } = await loadApiDocument(GITHUB_SPEC, { baseDir: "/", cacheDir: "/x" });
  const built = buildApiCatalogue(document, BUILD);
  assert.ok(built.total >= 1000, `GitHub has ${built.total} operations`);
  const tool = built.catalogue.tools.find((t) => t.originalName === "repos_list_for_org");
  assert.ok(tool);
  assert.equal(tool.inputType, "ReposListForOrgInput");
  assert.match(
    built.catalogue.declarations,
    /export interface ReposListForOrgInput \{[^}]*\n {2}org: string;/,
  );
  assert.match(
    built.catalogue.declarations,
    /export type ReposListForOrgOutput = MinimalRepository\[\];/,
  );
  assert.deepEqual(tool.annotations?.readOnlyHint, true);
  const create = built.catalogue.tools.find((t) => t.originalName === "repos_create_in_org");
  assert.equal(create?.annotations?.gatewayDefaultAction, "ask");
  assert.ok(built.catalogue.warnings.some((w) => w.includes('"oneOf" without a discriminator')));
});

Deno.test("buildApiCatalogue() applies include and exclude and notes left-out operations", async () => {
  const { document } = await loadApiDocument(join(OAS_EXAMPLES, "3.0/json/petstore.json"), {
    baseDir: "/",
    cacheDir: "/x",
  });
  const built = buildApiCatalogue(document, {
    include: ["tag:pet", "GET /store/*"],
    exclude: ["deletePet"],
    writes: "allow",
  });
  const names = built.catalogue.tools.map((t) => t.originalName).sort();
  assert.ok(names.includes("getPetById") && names.includes("getInventory"));
  assert.ok(!names.includes("deletePet") && !names.includes("placeOrder"));
  assert.ok(built.catalogue.warnings.some((w) => /left out \d+ operations by "include"/.test(w)));
  assert.equal(built.catalogue.tools[0]?.annotations?.gatewayDefaultAction, undefined);
});

Deno.test("buildApiCatalogue() notes callbacks it cannot represent", async () => {
  const { document } = await loadApiDocument(join(OAS_EXAMPLES, "3.0/json/callbacks.json"), {
    baseDir: "/",
    cacheDir: "/x",
  });
  const built = buildApiCatalogue(document, BUILD);
  assert.match(built.catalogue.warnings.join("\n"), /loosened .*its callbacks are not represented/);
});

Deno.test("buildApiCatalogue() leaves out an operation that needs a cookie or an unsendable body", () => {
  const document = {
    openapi: "3.0.3",
    info: { title: "t", version: "1" },
    paths: {
      "/session": {
        get: {
          parameters: [{ name: "sid", in: "cookie", required: true, schema: { type: "string" } }],
          responses: { "200": { description: "ok" } },
        },
      },
      "/xml": {
        post: {
          operationId: "postXml",
          requestBody: { required: true, content: { "application/xml": { schema: {} } } },
          responses: { "204": { description: "ok" } },
        },
      },
      "/ok": { get: { responses: { "204": { description: "none" } } } },
      "/me": {
        get: {
          operationId: "me",
          security: [{ session: [] }],
          responses: { "200": { description: "ok" } },
        },
      },
    },
    components: {
      securitySchemes: { session: { type: "apiKey", in: "cookie", name: "SESSION" } },
    },
  };
  const built = buildApiCatalogue(document, BUILD);
  assert.deepEqual(built.catalogue.tools.map((t) => t.originalName), ["get_ok"]);
  assert.equal(built.catalogue.tools[0]?.outputType, "GetOkOutput");
  assert.match(built.catalogue.declarations, /export type GetOkOutput = null;/);
  const notes = built.catalogue.warnings.join("\n");
  assert.match(notes, /left out GET \/session \(get_session\): it needs cookie parameter "sid"/);
  assert.match(
    notes,
    /left out POST \/xml \(postXml\): its body is only accepted as "application\/xml"/,
  );
});
