import assert from "node:assert/strict";
import { DiscoveryReader } from "../protocol/discovery_data.ts";
import { describePath } from "./describe.ts";
import { buildDiscoveryData } from "./run_discovery_data.ts";
import { SearchIndex } from "./search.ts";
import { syntheticSnapshot } from "./synthetic_snapshot.ts";

function sides() {
  const index = new SearchIndex(syntheticSnapshot());
  // Through JSON, as the run message carries it.
  const reader = new DiscoveryReader(
    JSON.parse(JSON.stringify(buildDiscoveryData(index.entries))),
  );
  return { index, reader };
}

function outcome(run: () => unknown): unknown {
  try {
    return { ok: run() };
  } catch (error) {
    return { name: (error as Error).name, message: (error as Error).message };
  }
}

Deno.test("in-script `describe()` answers what the server's describe answers, for every path", () => {
  const { index, reader } = sides();
  const paths = [
    ...index.entries.suggestions(),
    ...index.entries.namespaces.map((ns) => ns.name),
    ...index.entries.entries.flatMap((entry) =>
      entry.kind === "tool"
        ? [`${entry.namespace.name}.${entry.tool.originalName}`, `tools.${entry.identifier}`]
        : [`${entry.path}.ts`]
    ),
    "tools.github.get_isue",
    "nothing at all",
    "",
  ];
  assert.ok(paths.length > 50);
  let described = 0;
  for (const path of paths) {
    for (const options of [{}, { depth: 2 }, { full: true }]) {
      const expected = outcome(() => describePath(index.entries, path, options).text);
      assert.deepEqual(
        outcome(() => reader.describe(path, options)),
        expected,
        `${path} ${JSON.stringify(options)}`,
      );
      if (
        options === undefined || Object.keys(options).length === 0 &&
          typeof expected === "object" && expected !== null && "ok" in expected
      ) described++;
    }
  }
  // Every item and namespace was described; the other paths fail alike on both sides.
  assert.ok(described >= index.entries.suggestions().length);
});

Deno.test("in-script `search()` ranks, pages and refuses exactly like the server's search", () => {
  const { index, reader } = sides();
  assert.ok(index.search("issue").total > 0);
  assert.ok(index.search("", { namespace: "kv" }).total > 0);
  const queries: Array<[string, { namespace?: string; limit?: number; offset?: number }]> = [
    ["issue", {}],
    ["create issue", { limit: 5 }],
    ["list", { offset: 3, limit: 4 }],
    ["", { namespace: "kv" }],
    ["tools.github.get_issue", {}],
    ["deploy", {}],
    ["get", { namespace: "githb" }],
    ["get", { limit: 0 }],
  ];
  for (const [query, options] of queries) {
    assert.deepEqual(
      outcome(() => reader.search(query, options)),
      outcome(() => index.search(query, options)),
      `${query} ${JSON.stringify(options)}`,
    );
  }
});
