/**
 * End-to-end on the bundled root: the shipped `kv`, `sqlite`, `fs` and `memory` tool modules
 * are callable from `gateway exec` and keep their data in real files under the data dir.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { type GatewayHarness, withHarness } from "./support/gateway_harness.ts";

async function exec(gw: GatewayHarness, source: string): Promise<unknown> {
  const result = await gw.cli(["exec", "--json", source]);
  assert.equal(result.code, 0, `${source}\n${result.stdout}${result.stderr}`);
  const run = JSON.parse(result.stdout) as { ok: boolean; result?: unknown };
  assert.equal(run.ok, true);
  return run.result;
}

Deno.test("the bundled kv, sqlite, fs and memory tools work from gateway exec", async (t) => {
  await withHarness({ bundled: true }, async (gw) => {
    await t.step("kv stores a value that a later run reads back", async () => {
      await exec(gw, 'await tools.kv.set({ key: "greeting", value: { text: "hej" } })');
      assert.deepEqual(await exec(gw, 'await tools.kv.get({ key: "greeting" })'), { text: "hej" });
      const db = new DatabaseSync(join(gw.dataDir, "kv.db"), { readOnly: true });
      try {
        const tables = db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'")
          .get() as { n: number };
        assert.ok(tables.n > 0);
      } finally {
        db.close();
      }
    });

    await t.step(
      "sqlite creates a database, writes with bound parameters and queries it",
      async () => {
        const rows = await exec(
          gw,
          `await tools.sqlite.execute({ database: "shop", sql: "CREATE TABLE items (name TEXT, qty INTEGER)" });
await tools.sqlite.execute({ database: "shop", sql: "INSERT INTO items VALUES (?, ?)", params: ["pen", 3] });
await tools.sqlite.query({ database: "shop", sql: "SELECT name, qty FROM items WHERE qty > ?", params: [1] })`,
        );
        assert.deepEqual(rows, [{ name: "pen", qty: 3 }]);
        assert.deepEqual(await exec(gw, "await tools.sqlite.databases()"), ["shop"]);
      },
    );

    await t.step("fs writes, lists and reads files in its root", async () => {
      const read = await exec(
        gw,
        `await tools.fs.write({ path: "notes/a.txt", content: "line one" });
const names = (await tools.fs.list({ path: "notes" })).map((e) => e.name);
[names, await tools.fs.read({ path: "notes/a.txt" })]`,
      );
      assert.deepEqual(read, [["a.txt"], "line one"]);
      const outside = await gw.cli([
        "exec",
        "--json",
        'await tools.fs.read({ path: "/etc/passwd" })',
      ]);
      assert.equal(JSON.parse(outside.stdout).error.kind, "ToolError");
    });

    await t.step("memory keeps entities and relations in a graph", async () => {
      const graph = await exec(
        gw,
        `await tools.memory.createEntities({ entities: [
  { name: "Ada", entityType: "person", observations: ["wrote the first program"] },
  { name: "Engine", entityType: "machine" },
] });
await tools.memory.createRelations({ relations: [{ from: "Ada", to: "Engine", relationType: "programmed" }] });
await tools.memory.searchNodes({ query: "program" })`,
      ) as { entities: Array<{ name: string }>; relations: unknown[] };
      assert.ok(graph.entities.some((e) => e.name === "Ada"), JSON.stringify(graph));
      const full = await exec(gw, "await tools.memory.readGraph()") as {
        relations: Array<{ relationType: string }>;
      };
      assert.deepEqual(full.relations.map((r) => r.relationType), ["programmed"]);
    });
  });
});
