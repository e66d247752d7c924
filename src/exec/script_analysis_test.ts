import assert from "node:assert/strict";
import { analyzeScript, namespacesUsed, type ScriptUsage } from "./script_analysis.ts";
import { prepareScript } from "./script_transform.ts";

const CATALOGUE = [
  { name: "kv", identifier: "kv" },
  { name: "my-files", identifier: "my_files" },
  { name: "github", identifier: "github" },
];

Deno.test("analyzeScript reads the namespaces a script names under tools", async () => {
  const usage = await analyzeScript(
    'const a = await tools.kv.get({ key: "x" });\nawait tools["my-files"].read({});\n' +
      "await tools?.github!.list_issues({});",
  );
  assert.deepEqual(usage, {
    dotted: ["kv", "github"],
    indexed: ["my-files"],
    dynamic: false,
    discovery: false,
    resources: false,
  });
  assert.deepEqual(namespacesUsed(usage, CATALOGUE), new Set(["kv", "my-files", "github"]));
});

Deno.test("analyzeScript ignores tools, search, describe and resources in strings and comments", async () => {
  const usage = await analyzeScript(
    [
      '// tools[name] would be dynamic; search("x") and describe("y") too',
      "/* resources.list() */",
      'const note = "tools[x] search( describe( resources.read";',
      "const t = `tools[${1}] search(`;",
      "await tools.kv.get({ key: note + t });",
    ].join("\n"),
  );
  assert.equal(usage.dynamic, false);
  assert.equal(usage.discovery, false);
  assert.equal(usage.resources, false);
  assert.deepEqual(namespacesUsed(usage, CATALOGUE), new Set(["kv"]));
});

Deno.test("analyzeScript treats a computed or aliased tools as dynamic: the run may use any namespace", async () => {
  for (
    const source of [
      "const ns = 'kv';\nawait tools[ns].get({});",
      "const t = tools;\nawait t.kv.get({});",
      "console.log(Object.keys(tools));",
      "const { kv } = tools;",
      "await tools[`k${'v'}`].get({});",
    ]
  ) {
    const usage = await analyzeScript(source);
    assert.equal(usage.dynamic, true, source);
    assert.equal(namespacesUsed(usage, CATALOGUE), undefined, source);
  }
});

Deno.test("analyzeScript sees search, describe and resources used in code", async () => {
  const cases: [string, Partial<ScriptUsage>][] = [
    ['const hits = await search("create issue");', { discovery: true }],
    ['console.log(await describe("tools.kv.get"));', { discovery: true }],
    ['const found = await Promise.all(["a", "b"].map(search));', { discovery: true }],
    ["const list = await resources.list();", { resources: true }],
    ['await globalThis.search("x");', { discovery: true, dynamic: false }],
    ["await globalThis.resources.list();", { resources: true }],
    ["await globalThis.tools.kv.get({});", { dynamic: true }],
    ['const g = globalThis;\nawait g["search"]("x");', { discovery: true, dynamic: true }],
  ];
  for (const [source, expected] of cases) {
    const usage = await analyzeScript(source);
    for (const [key, value] of Object.entries(expected)) {
      assert.equal(usage[key as keyof ScriptUsage], value, source);
    }
    assert.equal(namespacesUsed(usage, CATALOGUE), undefined, source);
  }
});

Deno.test("analyzeScript does not mistake property names and members for the globals", async () => {
  const usage = await analyzeScript(
    [
      "const o = { tools: 1, search: 2, describe() {}, resources: 3 };",
      "o.describe();",
      'const s = "abc".search("b");',
      "class A { search() { return 1; } }",
      "await tools.kv.get({});",
    ].join("\n"),
  );
  assert.deepEqual(usage, {
    dotted: ["kv"],
    indexed: [],
    dynamic: false,
    discovery: false,
    resources: false,
  });
});

Deno.test("prepareScript carries the usage, read from the same AST, to the runner and the server", async () => {
  const prepared = await prepareScript('// search("x")\nawait tools.kv.get({ key: "a" })', {
    inline: true,
  });
  assert.equal(prepared.kind, "Prepared");
  assert.deepEqual(prepared.kind === "Prepared" ? prepared.usage : null, {
    dotted: ["kv"],
    indexed: [],
    dynamic: false,
    discovery: false,
    resources: false,
  });
});
