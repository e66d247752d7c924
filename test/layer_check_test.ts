import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { checkLayers } from "./layer_check.ts";
import { lazyImportsOf, projectGraph, startedModulesOf } from "./project_graph.ts";
import { lockClosure, packageProblems, productPackages, TEST_LOCK } from "./package_check.ts";

const REPO = fileURLToPath(new URL("../", import.meta.url));

/** Writes a tiny project (path → text) into a temp dir and returns its path. */
async function tree(files: Record<string, string>): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "layer_check_" });
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(dirname(join(root, path)), { recursive: true });
    await Deno.writeTextFile(join(root, path), text);
  }
  return root;
}

async function problemsOf(files: Record<string, string>): Promise<string[]> {
  const root = await tree(files);
  try {
    return await checkLayers(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("`lazyImportsOf()` reads literal paths, with or without a type argument, and flags computed ones", () => {
  const text = [
    'const a = await lazyImport<typeof import("./a.ts")>("./a.ts", import.meta.url);',
    "const b = await lazyImport<Alias>(",
    '  "../b.ts",',
    "  import.meta.url,",
    ");",
    'const c = await lazyImport("./c.ts", import.meta.url);',
    "const d = await lazyImport(name, import.meta.url);",
    'import { lazyImport } from "./lazy_import.ts";',
  ].join("\n");
  assert.deepEqual(lazyImportsOf(text), {
    paths: [["./a.ts", 1], ["../b.ts", 2], ["./c.ts", 6]],
    computed: [7],
  });
});

Deno.test("`startedModulesOf()` finds the modules a file starts, not those its comments name", () => {
  const text = [
    'const w = new Worker(new URL("./worker_main.ts", import.meta.url), { type: "module" });',
    ' * url: new URL("./example.ts", import.meta.url),',
    '// new URL("./old.ts", import.meta.url)',
    'args: [new URL("../main.ts", import.meta.url).href],',
    'const bundle = new URL("./x.bundle.js", import.meta.url);',
  ].join("\n");
  assert.deepEqual(startedModulesOf(text), [["./worker_main.ts", 1], ["../main.ts", 4]]);
});

Deno.test("`checkLayers()` passes a tree whose imports all point downstream", async () => {
  const problems = await problemsOf({
    "src/server/s.ts": 'import { x } from "../exec/e.ts";\nexport const s = x;',
    "src/exec/e.ts": 'import { y } from "../protocol/p.ts";\nexport const x = y;',
    "src/exec/runner/r.ts": 'import { v } from "../../protocol/v.ts";\nexport const r = v;',
    "src/protocol/v.ts": "export const v = 1;",
    "src/protocol/p.ts": 'import { z } from "../config/c.ts";\nexport const y = z;',
    "src/config/c.ts": "export const z = 1;",
    "src/server/s_test.ts":
      'import { s } from "./s.ts";\nimport { r } from "../exec/runner/r.ts";\n' +
      "console.log(s, r);",
  });
  assert.deepEqual(problems, []);
});

Deno.test("`checkLayers()` reports an import back up the layers, naming file, line and areas", async () => {
  const problems = await problemsOf({
    "src/store/s.ts": '\nimport type { K } from "../workflows/w.ts";\nexport type S = K;',
    "src/workflows/w.ts": "export type K = string;",
    "src/discovery/d.ts": 'export const d = await import("../exec/e.ts");',
    "src/exec/e.ts": "export const n = 1;",
  });
  assert.equal(problems.length, 2, problems.join("\n"));
  assert.match(
    problems[0]!,
    /^src\/discovery\/d\.ts:1 imports \.\.\/exec\/e\.ts: discovery\/ is downstream of exec\//,
  );
  assert.match(
    problems[1]!,
    /^src\/store\/s\.ts:2 imports \.\.\/workflows\/w\.ts: store\/ must not/,
  );
});

Deno.test("`checkLayers()` forbids peers of one rank from importing each other", async () => {
  const problems = await problemsOf({
    "src/exec/e.ts": 'import { w } from "../workflows/w.ts";\nexport const e = w;',
    "src/workflows/w.ts": "export const w = 1;",
  });
  assert.equal(problems.length, 1, problems.join("\n"));
  assert.match(problems[0]!, /exec\/ and workflows\/ are peers/);
});

Deno.test("`checkLayers()` reports an unknown area so RANK is kept complete", async () => {
  const problems = await problemsOf({
    "src/server/s.ts": 'import { x } from "../gadgets/g.ts";\nexport const s = x;',
    "src/gadgets/g.ts": "export const x = 1;",
  });
  assert.equal(problems.length, 1, problems.join("\n"));
  assert.match(problems[0]!, /unknown area "gadgets\/"/);
});

Deno.test("`checkLayers()` follows the runner's imports transitively and names the chain", async () => {
  const problems = await problemsOf({
    "src/exec/runner/r.ts": 'import { p } from "../../protocol/p.ts";\nexport const r = p;',
    // Allowed by ranks (protocol may import config), but the runner must load protocol only.
    "src/protocol/p.ts": 'import { c } from "../config/c.ts";\nexport const p = c;',
    "src/config/c.ts": "export const c = 1;",
  });
  assert.deepEqual(problems, [
    "src/exec/runner/r.ts → src/protocol/p.ts → src/config/c.ts: the script runner " +
    "(src/exec/runner/) may load only src/protocol/ (its way back to the gateway is the socket)",
  ]);
});

Deno.test("`checkLayers()` reports each file cycle as a path, through static, type-only and dynamic imports", async () => {
  const problems = await problemsOf({
    // A two-file cycle where one side is type-only.
    "src/server/core.ts": 'import { run } from "./runner.ts";\nexport const core = run;',
    "src/server/runner.ts": 'import type { Core } from "./core_type.ts";\nexport const run = 1;\n' +
      "export type R = Core;",
    "src/server/core_type.ts":
      'import type { core } from "./core.ts";\nexport type Core = typeof core;',
    // A cycle closed by a dynamic import.
    "src/config/loader.ts": 'export const text = () => import("./text.ts");',
    "src/config/text.ts": 'import { text } from "./loader.ts";\nexport const t = text;',
    // Not a cycle: a test imports the file that imports nothing back.
    "src/config/loader_test.ts": 'import { text } from "./loader.ts";\nconsole.log(text);',
  });
  assert.deepEqual(problems.map((p) => p.split(": ")[0]), [
    "src/config/loader.ts → src/config/text.ts → src/config/loader.ts",
    "src/server/core.ts → src/server/runner.ts → src/server/core_type.ts → src/server/core.ts",
  ]);
  assert.match(problems[0]!, /these files import each other/);
});

Deno.test("`checkLayers()` sees `lazyImport()` edges Deno's graph leaves out, and refuses a computed path", async () => {
  const lazy = "export function lazyImport<T>(path: string, base: string): Promise<T> {\n" +
    "  return import(new URL(path, base).href);\n}\n";
  const problems = await problemsOf({
    "src/protocol/lazy_import.ts": lazy,
    "src/cli/commands.ts": 'import { lazyImport } from "../protocol/lazy_import.ts";\n' +
      'export const load = () => lazyImport<typeof import("./run.ts")>("./run.ts", import.meta.url);\n' +
      "export const any = (name: string) => lazyImport(name, import.meta.url);",
    "src/cli/run.ts": 'import { load } from "./commands.ts";\nexport const run = load;',
    "src/main.ts": 'import { lazyImport } from "./protocol/lazy_import.ts";\n' +
      'export const m = lazyImport<unknown>("./exec/e.ts", import.meta.url);',
    "src/exec/e.ts": 'import { lazyImport } from "../protocol/lazy_import.ts";\n' +
      'export const e = lazyImport<unknown>("../server/s.ts", import.meta.url);',
    "src/server/s.ts": "export const s = 1;",
  });
  assert.deepEqual(problems.map((p) => p.split(": ")[0]).sort(), [
    "src/cli/commands.ts → src/cli/run.ts → src/cli/commands.ts",
    "src/cli/commands.ts:3",
    "src/exec/e.ts:2 imports ../server/s.ts",
  ]);
  assert.ok(problems.some((p) => /computed path the layer check cannot follow/.test(p)));
});

Deno.test("`checkLayers()` keeps namespace kinds side by side over kind_support and the contract", async () => {
  const problems = await problemsOf({
    "src/namespaces/namespace.ts": "export interface Namespace { name: string }",
    "src/namespaces/registry.ts": 'import type { Namespace } from "./namespace.ts";\n' +
      'import { glob } from "./kind_support/glob.ts";\nexport type R = Namespace;\nexport const g = glob;',
    "src/namespaces/kind_support/glob.ts": 'import type { Namespace } from "../namespace.ts";\n' +
      "export const glob = 1;\nexport type N = Namespace;",
    "src/namespaces/kind_support/validator.ts": 'import { mcp } from "../mcp/mcp.ts";\n' +
      "export const v = mcp;",
    "src/namespaces/mcp/mcp.ts": 'import { glob } from "../kind_support/glob.ts";\n' +
      "export const mcp = glob;",
    "src/namespaces/openapi/openapi.ts":
      'import { mcp } from "../mcp/mcp.ts";\nexport const o = mcp;',
    "src/namespaces/graphql/graphql.ts": 'import { glob } from "../kind_support/glob.ts";\n' +
      "export const q = glob;",
    "src/namespaces/gadgets/g.ts": 'import { glob } from "../kind_support/glob.ts";\n' +
      "export const x = glob;",
  });
  assert.deepEqual(problems, [
    'src/namespaces/gadgets/g.ts:1 imports ../kind_support/glob.ts: unknown area "namespaces/gadgets/" ' +
    "(add it to NAMESPACE_RANK in test/layer_check.ts)",
    "src/namespaces/kind_support/validator.ts:1 imports ../mcp/mcp.ts: namespaces/kind_support/ is " +
    "downstream of namespaces/mcp/; imports must point downstream",
    "src/namespaces/openapi/openapi.ts:1 imports ../mcp/mcp.ts: namespaces/openapi/ and " +
    "namespaces/mcp/ are namespace kinds, side by side: neither imports the other (move what both " +
    "use to src/namespaces/kind_support/)",
    "src/namespaces/registry.ts:2 imports ./kind_support/glob.ts: src/namespaces/*.ts is downstream " +
    "of namespaces/kind_support/; imports must point downstream",
  ]);
});

Deno.test("`checkLayers()` lets bundled tool modules load built-ins, pinned packages and siblings only", async () => {
  const problems = await problemsOf({
    "tools/kv.ts": 'import { join } from "node:path";\nimport { s } from "./shared.ts";\n' +
      'import { n } from "../src/protocol/names.ts";\nexport const kv = [join, s, n];\n' +
      'export const pg = () => import("npm:postgres@3.4.9");',
    "tools/shared.ts": "export const s = 1;",
    "tools/kv_test.ts":
      'import { kv } from "./kv.ts";\nimport { h } from "../test/support/h.ts";\n' +
      "console.log(kv, h);",
    "tools/bad_test.ts": 'import { n } from "../src/protocol/names.ts";\nconsole.log(n);',
    "test/support/h.ts": "export const h = 1;",
    "src/protocol/names.ts": "export const n = 1;",
    "src/server/s.ts": 'import { kv } from "../../tools/kv.ts";\nexport const s = kv;',
  });
  assert.deepEqual(problems.map((p) => p.split(": ")[0]), [
    "src/server/s.ts:1 imports ../../tools/kv.ts",
    "tools/bad_test.ts:1 imports ../src/protocol/names.ts",
    "tools/kv.ts:3 imports ../src/protocol/names.ts",
  ]);
  assert.match(problems[0]!, /src\/ never loads tools\//);
  assert.match(problems[2]!, /a tool module loads nothing of the gateway's \(src\/\)/);
});

Deno.test("`checkLayers()` reports a tool called anywhere but through the dispatcher", async () => {
  const problems = await problemsOf({
    "src/server/tool_dispatcher.ts":
      "declare const registry: any, namespace: any, t: 1, a: 1, o: 1;\n" +
      "export const claimed = registry.claimCalls();\nnamespace.callTool(t, a, o);",
    "src/server/gateway_core.ts": "declare const dispatcher: any;\n" +
      "export const c = () => dispatcher.callTool(1);",
    "src/server/methods/m.ts": "declare const context: any;\n" +
      "await context.dispatcher.callTool(1, 2, 3, 4);",
    "src/namespaces/mcp/d.ts": "declare const real: any;\nreal.callTool(1, 2, 3);",
    "src/server/methods/sneaky.ts": "declare const registry: any;\nconst ns = registry.get(1);\n" +
      "await ns.callTool(1, 2, 3);",
    "src/mcp_server/expose.ts": "declare const ns: any;\nawait ns.callValue(1, 2, 3);",
    "src/server/old.ts": "declare const core: any;\nawait core.callTool(1, 2, 3, 4);",
    "src/exec/claim.ts":
      "declare const core: any;\nexport const calls = core.registry.claimCalls();",
  });
  assert.deepEqual(problems.map((p) => p.split(": ")[0]), [
    "src/exec/claim.ts:2",
    "src/mcp_server/expose.ts:2",
    "src/server/gateway_core.ts:2",
    "src/server/methods/sneaky.ts:3",
    "src/server/old.ts:2",
  ]);
  assert.match(problems[0]!, /every call goes through the tool dispatcher/);
});

Deno.test("`packageProblems()` refuses an import map entry or a lock entry only tests use", async () => {
  const root = await tree({
    "deno.json": JSON.stringify({ imports: { yaml: "npm:yaml@2.9.1", zod: "npm:zod@4.6.7" } }),
    "src/main.ts": 'import { z } from "zod";\nexport const m = z;',
    "src/cli/fast_main.ts": 'export const f = new URL("../main.ts", import.meta.url);',
    "test/t_test.ts": 'import { parse } from "yaml";\nconsole.log(parse);',
  });
  try {
    await Deno.writeTextFile(
      join(root, "deno.lock"),
      JSON.stringify({
        version: "5",
        specifiers: { "npm:zod@4.6.7": "4.6.7", "npm:left-pad@1.3.0": "1.3.0" },
        npm: { "zod@4.6.7": {}, "left-pad@1.3.0": {}, "orphan@1.0.0": {} },
      }),
    );
    const graph = await projectGraph(root);
    assert.deepEqual([...productPackages(graph).keys()], ["zod"]);
    const problems = await packageProblems(graph);
    assert.equal(problems.length, 4, problems.join("\n"));
    assert.match(
      problems[0]!,
      /^deno\.json imports "yaml" \(npm:yaml@2\.9\.1\), which the product/,
    );
    assert.match(problems[0]!, /Import it in the tests as "npm:yaml@2\.9\.1"/);
    assert.match(
      problems[1]!,
      /^deno\.lock pins "npm:left-pad@1\.3\.0", which deno\.json does not/,
    );
    assert.match(problems[2]!, /^deno\.lock holds npm package orphan@1\.0\.0, which none/);
    assert.match(problems[3]!, /^test\/deno\.lock is missing/);
    await Deno.writeTextFile(
      join(root, TEST_LOCK),
      JSON.stringify({ specifiers: { "npm:zod@4.6.7": "4.6.6" }, npm: {} }),
    );
    const drift = await packageProblems(graph);
    assert.ok(
      drift.some((p) =>
        p.startsWith("test/deno.lock does not hold deno.lock's resolution of npm:zod@4.6.7")
      ),
    );
    assert.ok(drift.some((p) => p.includes("resolution of npm package zod@4.6.7")));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a user's first run fetches no package only tests or builds use", async () => {
  // What Deno fetches on a first run is every package of deno.lock; what the product imports
  // is the graph of its entries. Neither holds the tests' browser driver, accessibility
  // checker, conformance suite or the editor's CodeMirror (bundled into static/editor.js).
  const graph = await projectGraph(REPO, { lock: TEST_LOCK });
  const product = productPackages(graph);
  const lock = JSON.parse(await Deno.readTextFile(join(REPO, "deno.lock")));
  const fetched = [...lockClosure(lock)].map((id) => id.slice(0, id.indexOf("@", 1)));
  const testOnly = [
    "playwright-core",
    "axe-core",
    "@modelcontextprotocol/conformance",
    "codemirror",
  ];
  for (const name of testOnly) {
    assert.ok(!product.has(name), `the product imports ${name} (${product.get(name)})`);
    assert.ok(!fetched.includes(name), `deno.lock makes a first run fetch ${name}`);
  }
  assert.ok(
    !fetched.some((name) => name.startsWith("@codemirror/")),
    "a first run fetches CodeMirror",
  );
  // The tests do import them (so the names above are the real ones).
  const tests = new Set<string>();
  for (const [file, edges] of graph.modules) {
    if (file.startsWith("test/")) { for (const e of edges) tests.add(e.to); }
  }
  assert.ok(tests.has("npm:playwright-core@1.65.1") || tests.has("npm:/playwright-core@1.65.1"));
  // The product's own packages are all in deno.lock.
  for (const name of product.keys()) assert.ok(fetched.includes(name), `${name} is not locked`);
  assert.deepEqual(await packageProblems(graph), []);
});
