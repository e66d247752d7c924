import assert from "node:assert/strict";
import { loadDenoLibTypes } from "./deno_lib_types.ts";
import { ScriptChecker } from "./script_checker.ts";
import { type PreparedScript, prepareScript } from "./script_transform.ts";

const SAMPLE_GLOBALS = [
  "declare const tools: { kv: { get(args: { key: string }): Promise<unknown> } };",
  "declare function stdin(): { text(): string };",
  "declare const args: string[];",
].join("\n");

/** One warm checker for the whole file: building it is the slow part (see the bench). */
const checkerReady: Promise<ScriptChecker> = (async () => {
  const cacheDir = await Deno.makeTempDir({ prefix: "gateway-checker-test-" });
  try {
    const denoTypes = await loadDenoLibTypes({ cacheDir });
    return await ScriptChecker.create({ denoTypes, globals: SAMPLE_GLOBALS });
  } finally {
    await Deno.remove(cacheDir, { recursive: true });
  }
})();

/** Runs `body` with the shared checker, restoring the sample globals afterwards. */
async function withChecker(body: (checker: ScriptChecker) => void | Promise<void>) {
  const checker = await checkerReady;
  try {
    await body(checker);
  } finally {
    checker.setGlobals(SAMPLE_GLOBALS);
  }
}

function prepared(result: Awaited<ReturnType<typeof prepareScript>>): PreparedScript {
  if (result.kind !== "Prepared") throw new Error(`Expected a prepared script: ${result.message}`);
  return result;
}

Deno.test("ScriptChecker.check() points a wrong tool argument at the script's own line", async () => {
  await withChecker((checker) => {
    const diagnostics = checker.check([
      "const key = 'a';",
      "console.log(key);",
      "const value = await tools.kv.get({ key: 42 });",
      "console.log(value);",
    ].join("\n"));
    assert.equal(diagnostics.length, 1);
    const [diagnostic] = diagnostics;
    assert.equal(diagnostic?.line, 3);
    assert.equal(diagnostic?.column, 36);
    assert.equal(diagnostic?.code, 2322);
    assert.match(diagnostic?.message ?? "", /Type 'number' is not assignable to type 'string'/);
  });
});

Deno.test("ScriptChecker.check() answers no diagnostics for a valid script", async () => {
  await withChecker((checker) => {
    const diagnostics = checker.check([
      "const input = stdin().text();",
      "const value = await tools.kv.get({ key: input || args[0] || 'default' });",
      "console.log(JSON.stringify(value));",
    ].join("\n"));
    assert.deepEqual(diagnostics, []);
  });
});

Deno.test("ScriptChecker.check() knows Deno's runtime APIs and web globals", async () => {
  await withChecker((checker) => {
    assert.deepEqual(
      checker.check([
        "const text = await Deno.readTextFile('/tmp/x');",
        "const response = await fetch(new URL('https://example.com'));",
        "const body: string = await response.text();",
        "console.log(text.length, body, Deno.args, Deno.pid, crypto.randomUUID());",
        "setTimeout(() => {}, 1); performance.now(); structuredClone({ a: 1 });",
        "new TextEncoder().encode('x'); await new Promise((r) => queueMicrotask(() => r(1)));",
        "await new Promise((resolve) => setTimeout(resolve, 1));",
        "clearInterval(setInterval(() => {}, 10)); clearImmediate(setImmediate(() => {}));",
        "console.log(process.env.HOME, Buffer.from('x').toString('base64'), global.Deno);",
      ].join("\n")),
      [],
    );
    const wrong = checker.check("Deno.readTextFileSync(42);");
    assert.equal(wrong.length, 1);
    assert.equal(wrong[0]?.code, 2345);
    assert.deepEqual([wrong[0]?.line, wrong[0]?.column], [1, 23]);
    const unknown = checker.check("Deno.readTextFileFast('x');");
    assert.match(unknown[0]?.message ?? "", /Property 'readTextFileFast' does not exist/);
  });
});

Deno.test("ScriptChecker.check() allows top-level await and module-local names", async () => {
  await withChecker((checker) => {
    assert.deepEqual(
      checker.check([
        "const args = ['shadowing the global is fine in a module'];",
        "for await (const chunk of [Promise.resolve(1)]) console.log(chunk, args);",
        "await Promise.all([tools.kv.get({ key: 'a' })]);",
        "export {};",
      ].join("\n")),
      [],
    );
  });
});

Deno.test("ScriptChecker.check() is lenient where model-written scripts commonly are", async () => {
  await withChecker((checker) => {
    assert.deepEqual(
      checker.check([
        "function show(row) { return String(row.name); }",
        "try { show({ name: 1 }); } catch (e) { console.error(e.message); }",
        "import { helper } from './helper.ts';",
        "import lib from 'npm:left-pad';",
        "console.log(helper, lib);",
      ].join("\n")),
      [],
    );
  });
});

Deno.test("ScriptChecker.check() keeps strict null checks", async () => {
  await withChecker((checker) => {
    const diagnostics = checker.check("const home: string = Deno.env.get('HOME');");
    assert.equal(diagnostics.length, 1);
    assert.equal(diagnostics[0]?.code, 2322);
  });
});

Deno.test("ScriptChecker.check() picks up new globals after setGlobals()", async () => {
  await withChecker((checker) => {
    const script = "const entry = await tools.fs.read({ path: 'a.txt' });\nconsole.log(entry);";
    const before = checker.check(script);
    assert.equal(before.length, 1);
    assert.match(before[0]?.message ?? "", /Unknown namespace "fs": .*the namespaces are: kv/);

    checker.setGlobals(
      SAMPLE_GLOBALS.replace(
        "declare const tools: {",
        "declare const tools: { fs: { read(args: { path: string }): Promise<string> };",
      ),
    );
    assert.deepEqual(checker.check(script), []);
    const wrongArgument = checker.check("await tools.fs.read({ file: 'a.txt' });");
    assert.equal(wrongArgument.length, 1);
    assert.match(wrongArgument[0]?.message ?? "", /'file' does not exist/);

    checker.setGlobals(SAMPLE_GLOBALS);
    assert.equal(checker.check(script).length, 1);
  });
});

Deno.test("ScriptChecker.check() reports a syntax error alone, at its own position", async () => {
  await withChecker((checker) => {
    const diagnostics = checker.check("const ok: number = 'no';\nconst = 2;\n");
    assert.ok(diagnostics.length > 0);
    assert.ok(diagnostics.every((diagnostic) => diagnostic.line === 2 && diagnostic.code === 1134));
    assert.equal(diagnostics[0]?.column, 7);
    assert.equal(diagnostics[0]?.message, "Variable declaration expected.");
  });
});

Deno.test("ScriptChecker.check() maps errors in a captured last expression to the source", async () => {
  await withChecker(async (checker) => {
    const source = "const key = 7;\n  await tools.kv.get({ key });\n";
    const script = prepared(await prepareScript(source, { inline: true }));
    assert.equal(script.lastExpression, true);
    const diagnostics = checker.check(script);
    assert.equal(diagnostics.length, 1);
    // `key` is at line 2, column 24 of the source (not of the rewritten code).
    assert.deepEqual([diagnostics[0]?.line, diagnostics[0]?.column], [2, 24]);

    const fine = prepared(
      await prepareScript("await tools.kv.get({ key: 'x' })", { inline: true }),
    );
    assert.deepEqual(checker.check(fine), []);
    const renamed = prepared(
      await prepareScript("1 + 1", { inline: true, resultFunction: "__other" }),
    );
    assert.deepEqual(checker.check(renamed), []);
  });
});

Deno.test("ScriptChecker.globalsDiagnostics() reports errors inside the globals text", async () => {
  await withChecker((checker) => {
    assert.deepEqual(checker.globalsDiagnostics(), []);
    checker.setGlobals("declare const tools: {\n  kv: { get(): Promise<Missing> };\n};");
    const diagnostics = checker.globalsDiagnostics();
    assert.equal(diagnostics.length, 1);
    assert.deepEqual([diagnostics[0]?.line, diagnostics[0]?.column], [2, 24]);
    assert.match(diagnostics[0]?.message ?? "", /Cannot find name 'Missing'/);
  });
});

/** Two namespaces, one with a hyphenated original name, typed as the renderer types them. */
const HINT_GLOBALS = [
  "type GatewayArgs<In> = [In] extends [void] ? void | Record<string, never> : In;",
  "interface GatewayTool<In, Out> { (args: GatewayArgs<In>): Promise<Out>; raw(args: GatewayArgs<In>): Promise<unknown>; }",
  "declare const tools: {",
  "  kv: { get: GatewayTool<{ key: string }, unknown>; set: GatewayTool<{ key: string; value: unknown }, unknown> };",
  "  sqlite: { query: GatewayTool<{ database: string; sql: string }, unknown[]> };",
  '  everything: { get_env: GatewayTool<void, unknown>; "get-env": GatewayTool<void, unknown> };',
  "};",
  "declare function stdin(): { json(): any };",
].join("\n");

function firstMessage(checker: ScriptChecker, source: string): string {
  const diagnostics = checker.check(source);
  assert.ok(diagnostics.length > 0, `expected an error for ${JSON.stringify(source)}`);
  return diagnostics[0]!.message;
}

Deno.test("ScriptChecker.check() accepts what deno check accepts", async () => {
  await withChecker((checker) => {
    checker.setGlobals(HINT_GLOBALS);
    for (
      const source of [
        "const a = [];\na.push(1);\nconsole.log(a);",
        "stdin().json().n * 21;",
        "await tools.everything.get_env({});\nawait tools.everything.get_env();",
        "await tools.everything.get_env(undefined);",
        'import { readFileSync } from "node:fs";\nconsole.log(readFileSync);',
        "function show(row) { return row.name; }\nconsole.log(show({ name: 1 }));",
        'const o: Record<string, number> = {};\nconst k = "a" as string;\nconsole.log(({ a: 1 })[k], o);',
      ]
    ) {
      assert.deepEqual(checker.check(source), [], source);
    }
  });
});

Deno.test("ScriptChecker.check() names the nearest tools and namespaces for unknown names", async () => {
  await withChecker((checker) => {
    checker.setGlobals(HINT_GLOBALS);
    assert.match(
      firstMessage(checker, 'await tools.kv.query({ sql: "x" });'),
      /^Unknown tool "kv\.query": did you mean tools\.sqlite\.query\?.* Namespace "kv" has: get, set$/,
    );
    assert.match(
      firstMessage(checker, 'await tools.sqlit.query({ sql: "x" });'),
      /^Unknown namespace "sqlit": did you mean "sqlite"\? the namespaces are: kv, sqlite, everything/,
    );
    // A tool where a namespace goes: the namespaces that have it.
    assert.match(
      firstMessage(checker, 'await tools.query({ sql: "x" });'),
      /^Unknown namespace "query": "query" is a tool of tools\.sqlite\.query; the namespaces are/,
    );
    assert.match(
      firstMessage(checker, 'await kv.get({ key: "a" });'),
      /"kv" is a namespace: .* tools\.kv\.get\(…\)/,
    );
    assert.match(
      firstMessage(checker, "await tools.everything.get-env();"),
      /write tools\.everything\.get_env\(…\) or tools\.everything\["get-env"\]\(…\)/,
    );
    assert.match(firstMessage(checker, "const x = None;"), /JavaScript writes null here/);
  });
});

Deno.test("ScriptChecker.check() shows the tool's signature for a bad argument", async () => {
  await withChecker((checker) => {
    checker.setGlobals(HINT_GLOBALS);
    assert.match(
      firstMessage(checker, 'await tools.kv.set({ key: "a" });'),
      /; expected tools\.kv\.set\(\{ key: string, value: unknown \}\)$/,
    );
    assert.match(
      firstMessage(checker, "await tools.everything.get_env({ verbose: true });"),
      /expected tools\.everything\.get_env\(\)$/,
    );
    assert.match(
      firstMessage(checker, 'const v = tools.kv.get({ key: "a" });\nv.length;'),
      /did you forget to use 'await'\? Write \(await v\)\.length/,
    );
  });
});

Deno.test("ScriptChecker checks with the TypeScript version of the deno it runs with", async () => {
  const checker = await checkerReady;
  assert.equal(checker.typescriptVersion, Deno.version.typescript);
});

const SHAPE_GLOBALS = [
  "declare namespace GatewayNamespaces {",
  "  namespace db {",
  "    export type SqlParam = string | number | boolean | null;",
  "    export type SqlParams = SqlParam[] | { [name: string]: SqlParam };",
  "    export interface Graph { entities: string[]; relations: string[] }",
  "    export interface NewEntity { name: string; entityType: string }",
  "  }",
  "}",
  "declare const tools: { db: {",
  "  query(args: { sql: string; params?: GatewayNamespaces.db.SqlParams }): Promise<unknown>;",
  "  read(): Promise<GatewayNamespaces.db.Graph>;",
  "  add(args: { entities: GatewayNamespaces.db.NewEntity[] }): Promise<void>;",
  "} };",
].join("\n");

Deno.test("ScriptChecker.check() explains shapes: nested fields, aliases, objects as arrays, require", async () => {
  await withChecker((checker) => {
    checker.setGlobals(SHAPE_GLOBALS);
    const message = (source: string) => checker.check(source).map((d) => d.message).join("\n");
    assert.match(
      message('await tools.db.add({ entities: [{ name: "a", type: "person" }] });'),
      /'type' does not exist in type 'NewEntity': did you mean `entityType`\? 'NewEntity' has: name: string, entityType: string; expected tools\.db\.add\(/,
    );
    assert.match(
      message('await tools.db.query({ sql: "x", params: "one" });'),
      /\(where SqlParams = SqlParam\[\] \| \{ \[name: string\]: SqlParam \} \(an array or an object\); SqlParam = string \| number \| boolean \| null\)/,
    );
    assert.match(
      message("const graph = await tools.db.read();\ngraph.map((e) => e);"),
      /graph is 'Graph', an object, not an array; its fields: entities: string\[\], relations: string\[\]\. Use the array inside it, e\.g\. graph\.entities\.map/,
    );
    assert.match(
      message("const graph = await tools.db.read();\nfor (const e of graph) console.log(e);"),
      /graph is 'Graph', an object, not an array/,
    );
    const required = message('const fs = require("fs");\nfs;');
    assert.match(
      required,
      /`require` does not exist in a gateway script .*import … from "node:fs"/,
    );
    assert.doesNotMatch(required, /@types\/node/);
  });
});
