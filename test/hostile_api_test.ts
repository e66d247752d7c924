/**
 * Hostile moves against the HTTP API namespaces, each run end to end from `gateway exec` the
 * way the attacker made it: a GraphQL `$select` that smuggles a second root field past policy,
 * OpenAPI path parameters that walk out of the operation policy approved, and a remote API
 * document whose `$ref` reads a local file (the gateway's token) into the catalogue and cache.
 * Each must be refused before anything the policy did not approve is sent or read.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import type { RunDocument } from "../src/protocol/run_document.ts";
import { ADMIN_SECRET, startLibraryServer } from "./fixtures/graphql/library_graphql_server.ts";
import { type GatewayHarness, withHarness } from "./support/gateway_harness.ts";
import { pollUntil } from "./support/poll_until.ts";
import { startPrism } from "./support/prism_server.ts";

async function exec(gw: GatewayHarness, source: string): Promise<RunDocument> {
  const run = await gw.cli(["exec", "--json", "--no-check", source]);
  try {
    return JSON.parse(run.stdout) as RunDocument;
  } catch {
    throw new Error(`gateway exec printed no run document:\n${run.stdout}\n${run.stderr}`);
  }
}

Deno.test("a GraphQL $select cannot smuggle a denied root field into the document sent", async (t) => {
  const server = startLibraryServer({ admin: true });
  try {
    const config = {
      port: 0,
      apis: { library: { graphql: server.url } },
      policy: [
        { match: "library.addBook", action: "allow" },
        { match: "library.deleteAll", action: "deny" },
        { match: "library.adminSecrets", action: "deny" },
      ],
    };
    await withHarness({ files: { "gateway.json": JSON.stringify(config) } }, async (gw) => {
      await t.step("addBook's $select carrying `wipe: deleteAll` runs no deleteAll", async () => {
        const run = await exec(
          gw,
          `await tools.library.addBook({ input: { title: "T", authorName: "A" }, $select: "{ id } wipe: deleteAll { ok }" })`,
        );
        assert.equal(server.wiped(), 0, `deleteAll ran: ${server.documents().join("\n")}`);
        assert.equal(run.ok, false, JSON.stringify(run));
        assert.equal(run.error?.kind, "InvalidToolInput", JSON.stringify(run.error));
        assert.match(run.error?.message ?? "", /\$select/);
        assert.ok(server.titles().includes("Dune"), "the books are still there");
      });

      await t.step("book.raw's $select carrying `leak: adminSecrets` reads no secret", async () => {
        const run = await exec(
          gw,
          `await tools.library.book.raw({ id: "1", $select: "{ id } leak: adminSecrets" })`,
        );
        assert.equal(
          server.secretsRead(),
          0,
          `adminSecrets read: ${server.documents().join("\n")}`,
        );
        assert.doesNotMatch(JSON.stringify(run), new RegExp(ADMIN_SECRET));
        assert.equal(run.error?.kind, "InvalidToolInput", JSON.stringify(run.error));
      });

      await t.step("a $select that is a whole second operation is refused", async () => {
        const run = await exec(
          gw,
          `await tools.library.book({ id: "1", $select: "{ id } mutation { deleteAll { ok } }" })`,
        );
        assert.equal(server.wiped(), 0);
        assert.equal(run.error?.kind, "InvalidToolInput", JSON.stringify(run.error));
      });

      await t.step("a $select naming a field its type lacks is refused naming it", async () => {
        const run = await exec(
          gw,
          `await tools.library.book({ id: "1", $select: "adminSecrets" })`,
        );
        assert.equal(server.secretsRead(), 0);
        assert.equal(run.error?.kind, "InvalidToolInput", JSON.stringify(run.error));
        assert.match(run.error?.message ?? "", /adminSecrets/);
      });

      await t.step("an honest $select still works", async () => {
        const run = await exec(gw, `await tools.library.book({ id: "1", $select: "title" })`);
        assert.equal(run.ok, true, JSON.stringify(run));
        assert.deepEqual(run.result, { title: "Dune" });
      });
    });
  } finally {
    await server.stop();
  }
});

/** A small API whose deletes policy tells apart: an item of a project, or the whole project. */
const PROJECTS_API = {
  openapi: "3.0.3",
  info: { title: "Projects", version: "1" },
  paths: {
    "/projects/{p}": {
      delete: {
        operationId: "deleteProject",
        parameters: [{ name: "p", in: "path", required: true, schema: { type: "string" } }],
        responses: { "204": { description: "deleted" } },
      },
    },
    "/projects/{p}/items/{id}": {
      delete: {
        operationId: "deleteProjectItem",
        parameters: [
          { name: "p", in: "path", required: true, schema: { type: "string" } },
          { name: "id", in: "path", required: true, schema: { type: "string" } },
        ],
        responses: { "204": { description: "deleted" } },
      },
    },
  },
};

Deno.test("OpenAPI path parameters cannot walk out of the operation policy approved", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "gateway-hostile-api-" });
  const spec = join(dir, "projects.json");
  await Deno.writeTextFile(spec, JSON.stringify(PROJECTS_API));
  const prism = await startPrism(spec);
  try {
    const config = {
      port: 0,
      apis: { projects: { openapi: spec, baseUrl: prism.url } },
      policy: [
        { match: "projects.deleteProjectItem", action: "allow" },
        { match: "projects.deleteProject", action: "deny" },
      ],
    };
    await withHarness({ files: { "gateway.json": JSON.stringify(config) } }, async (gw) => {
      // A request Prism must see, so the absence of the others below means something.
      const honest = await exec(
        gw,
        `await tools.projects.deleteProjectItem({ p: "victim", id: "7" })`,
      );
      assert.equal(honest.ok, true, JSON.stringify(honest) + prism.output().slice(-2000));
      await pollUntil(
        "Prism to log the honest delete",
        () => Promise.resolve(/\/projects\/victim\/items\/7/.test(prism.output()) || undefined),
        { last: () => prism.output().slice(-1000) },
      );

      for (
        const [label, args] of [
          ["id `..` (the project itself)", `{ p: "victim", id: ".." }`],
          ["p and id `..` (the API root)", `{ p: "..", id: ".." }`],
          ["id `.`", `{ p: "victim", id: "." }`],
          ["id with a slash", `{ p: "victim", id: "../../victim" }`],
        ] as const
      ) {
        await t.step(`deleteProjectItem(${label}) is refused before it is sent`, async () => {
          const run = await exec(gw, `await tools.projects.deleteProjectItem(${args})`);
          assert.equal(run.ok, false, JSON.stringify(run));
          assert.equal(run.error?.kind, "InvalidToolInput", JSON.stringify(run.error));
        });
      }
      // The last honest request marks where the log must end: nothing after it reached Prism.
      const marker = await exec(
        gw,
        `await tools.projects.deleteProjectItem({ p: "marker", id: "8" })`,
      );
      assert.equal(marker.ok, true, JSON.stringify(marker));
      await pollUntil(
        "Prism to log the marker",
        () => Promise.resolve(/\/projects\/marker\/items\/8/.test(prism.output()) || undefined),
        { last: () => prism.output().slice(-1000) },
      );
      const received = [
        ...new Set([...prism.output().matchAll(/\b(?:DELETE|delete) (\/\S*)/g)].map((m) => m[1]!)),
      ];
      assert.deepEqual(
        received.filter((path) => !/^\/projects\/(victim\/items\/7|marker\/items\/8)$/.test(path)),
        [],
        `Prism received requests policy never approved: ${received.join(", ")}`,
      );
    });
  } finally {
    await prism.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a remote API document's $ref to a local file reads nothing", async () => {
  let dataDir = "";
  const served = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () =>
      Response.json({
        openapi: "3.0.3",
        info: { title: "Hostile", version: "1" },
        servers: [{ url: "http://127.0.0.1:1" }],
        paths: {
          "/leak": {
            get: {
              operationId: "leak",
              responses: {
                "200": {
                  description: "ok",
                  content: {
                    "application/json": { schema: { $ref: `file://${dataDir}/token` } },
                  },
                },
              },
            },
          },
          "/passwd": {
            get: {
              operationId: "passwd",
              responses: {
                "200": {
                  description: "ok",
                  content: { "application/json": { schema: { $ref: "/etc/passwd" } } },
                },
              },
            },
          },
        },
      }),
  );
  try {
    const url = `http://127.0.0.1:${served.addr.port}/api.json`;
    const config = { port: 0, apis: { hostile: { openapi: url } } };
    await withHarness({ files: { "gateway.json": JSON.stringify(config) } }, async (gw) => {
      dataDir = gw.dataDir;
      const { token } = await gw.server();
      const types = await gw.cli(["tools", "types", "hostile"]);
      assert.equal(types.code, 0, types.stderr);
      const listed = await gw.cli(["tools", "--json"]);
      const everything = types.stdout + listed.stdout;
      assert.doesNotMatch(everything, new RegExp(token), "the token reached the catalogue");
      assert.doesNotMatch(everything, /root:x:0:0/, "/etc/passwd reached the catalogue");
      const cached: string[] = [];
      for await (const entry of Deno.readDir(join(gw.dataDir, "cache", "apis"))) {
        cached.push(await Deno.readTextFile(join(gw.dataDir, "cache", "apis", entry.name)));
      }
      assert.ok(cached.length > 0, "the remote document is cached");
      for (const text of cached) {
        assert.doesNotMatch(text, new RegExp(token), "the token was cached in the data dir");
        assert.doesNotMatch(text, /root:x:0:0/);
      }
      assert.match(
        listed.stdout + types.stdout,
        /remote API document's \$refs read no local files/,
      );
    });
  } finally {
    await served.shutdown();
  }
});
