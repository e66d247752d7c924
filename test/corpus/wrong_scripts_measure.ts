/**
 * The MEASURE half of the wrong-script corpus: mistakes from the same themes as the tuning half
 * (a nested object literal with a field the type lacks, a value against a named alias, an
 * object used as an array, a missing `await` found at run time, `require(…)`, a timeout, `stdin`
 * that is not JSON, a bundled tool's failure), written with other tools and other shapes.
 *
 * This file was written and committed before the checks and hints it grades were changed, and
 * nothing is tuned on it: when one of these fails, fix the general behaviour from a tuning-half
 * script of the same theme (`wrong_scripts.ts`), never by reading the failure here. `deno task
 * corpus` reports this half's share on its own line.
 * @module
 */

import type { WrongScript } from "./wrong_scripts.ts";

const lines = (...text: string[]) => text.join("\n");

/** Fails when the text recommends installing Node's type declarations. */
const NO_TYPES_NODE = /^(?![\s\S]*@types\/node)/;

/** The measure half, in the order it runs. */
export const MEASURE_SCRIPTS: readonly WrongScript[] = [
  // --- a nested object literal with a property the element type does not have ---
  {
    name: "graph.create_relations with type instead of relationType",
    source: lines(
      "await tools.graph.create_relations({",
      "  relations: [",
      '    { from: "ada", to: "charles", type: "knows" },',
      "  ],",
      "});",
    ),
    expect: { kind: "CheckFailed", line: 3, hint: [/relationType/] },
  },
  {
    name: "files.edit_file with old/new instead of oldText/newText",
    source: lines(
      'const path = "hello.txt";',
      "await tools.files.edit_file({",
      "  path,",
      '  edits: [{ old: "hello", new: "hi" }],',
      "});",
    ),
    expect: { kind: "CheckFailed", line: 4, hint: [/oldText/, /newText/] },
  },
  {
    name: "graph.delete_observations with observation (singular)",
    source: lines(
      "// forget a fact",
      "await tools.graph.delete_observations({",
      '  deletions: [{ entityName: "ada", observation: ["likes tea"] }],',
      "});",
    ),
    expect: { kind: "CheckFailed", line: 3, hint: [/observations/] },
  },
  {
    name: "memory.addObservations with name instead of entityName, unchecked",
    check: false,
    source: lines(
      "await tools.memory.addObservations({",
      '  observations: [{ name: "ada", contents: ["wrote notes"] }],',
      "});",
    ),
    expect: { kind: "InvalidToolInput", line: 1, hint: [/entityName/] },
  },
  {
    name: "memory.createRelations with kind instead of relationType, unchecked",
    check: false,
    source: lines(
      "const rel = { from: 'a', to: 'b', kind: 'likes' };",
      "await tools.memory.createRelations({ relations: [rel] });",
    ),
    expect: { kind: "InvalidToolInput", line: 2, hint: [/relationType/] },
  },
  {
    name: "graph.add_observations with observations instead of contents, unchecked",
    check: false,
    source: lines(
      "// note it",
      "await tools.graph.add_observations({",
      '  observations: [{ entityName: "ada", observations: ["x"] }],',
      "});",
    ),
    expect: { kind: "InvalidToolInput", line: 2, hint: [/contents/] },
  },
  // --- a value against a named alias ---
  {
    name: "sqlite.execute with one string as params",
    source: lines(
      "const id = 'a1';",
      'await tools.sqlite.execute({ database: "m_alias", sql: "DELETE FROM t WHERE id = ?", params: id });',
    ),
    expect: { kind: "CheckFailed", line: 2, hint: [/SqlParams/, /SqlParam\[\]/] },
  },
  {
    name: "kv.set with a Date as value",
    source: lines(
      "const now = new Date();",
      'await tools.kv.set({ key: "seen", value: now });',
    ),
    expect: { kind: "CheckFailed", line: 2, hint: [/JsonValue/, /string \| number \| boolean/] },
  },
  {
    name: "fs.list entries compared with a type the alias lacks",
    source: lines(
      "const entries = await tools.fs.list({});",
      'const dirs = entries.filter((e) => e.type === "dir");',
      "dirs.length",
    ),
    expect: { kind: "CheckFailed", line: 2, hint: [/"directory"/] },
  },
  {
    name: "sqlite.query with a number as params, unchecked",
    check: false,
    source: lines(
      "// one row",
      'await tools.sqlite.query({ database: "m_alias2", sql: "SELECT ?", params: 5 })',
    ),
    expect: { kind: "InvalidToolInput", line: 2, hint: [/params/, /array/] },
  },
  // --- an object used as an array ---
  {
    name: "map over graph.read_graph's object",
    source: lines(
      "const graph = await tools.graph.read_graph();",
      "graph.map((node) => node.name)",
    ),
    expect: { kind: "CheckFailed", line: 2, hint: [/entities/, /relations/] },
  },
  {
    name: "forEach over memory.deleteEntities' result",
    source: lines(
      'const result = await tools.memory.deleteEntities({ entityNames: ["nobody"] });',
      "result.forEach((name) => console.log(name));",
    ),
    expect: { kind: "CheckFailed", line: 2, hint: [/deleted/, /notFound/] },
  },
  {
    name: "map over fs.stat's object, unchecked",
    check: false,
    source: lines(
      'const info = await tools.fs.stat({ path: "hello.txt" });',
      "",
      "info.map((field) => field)",
    ),
    expect: { kind: "ScriptError", line: 3, hint: [/size/, /modified/] },
  },
  {
    name: "filter over memory.searchNodes' graph, unchecked",
    check: false,
    source: lines(
      'const found = await tools.memory.searchNodes({ query: "ada" });',
      'found.filter((e) => e.entityType === "person")',
    ),
    expect: { kind: "ScriptError", line: 2, hint: [/entities/, /relations/] },
  },
  // --- a missing await, found at run time ---
  {
    name: "map over an un-awaited kv.list, unchecked",
    check: false,
    source: lines("const entries = tools.kv.list();", "entries.map((e) => e.key)"),
    expect: { kind: "ScriptError", line: 2, hint: [/await/] },
  },
  {
    name: "split of an un-awaited fs.read, unchecked",
    check: false,
    source: lines(
      'const text = tools.fs.read({ path: "hello.txt" });',
      "// count lines",
      'text.split("\\n").length',
    ),
    expect: { kind: "ScriptError", line: 3, hint: [/await/] },
  },
  {
    name: "property of a property of an un-awaited graph.read_graph, unchecked",
    check: false,
    source: lines("const graph = tools.graph.read_graph();", "graph.entities.length"),
    expect: { kind: "ScriptError", line: 2, hint: [/await/] },
  },
  {
    name: "length of an un-awaited sqlite.query",
    source: lines(
      'const rows = tools.sqlite.query({ database: "m_await", sql: "SELECT 1 AS one" });',
      "rows.length",
    ),
    expect: { kind: "CheckFailed", line: 2, hint: [/await/] },
  },
  // --- require(…) ---
  {
    name: "require of fs",
    source: lines(
      'const fs = require("fs");',
      'fs.readFileSync("data/hello.txt", "utf8")',
    ),
    expect: { kind: "CheckFailed", line: 1, hint: [/import/, /tools\.fs/, NO_TYPES_NODE] },
  },
  {
    name: "require of child_process",
    source: lines(
      "// list files",
      'const { execSync } = require("child_process");',
      'execSync("ls").toString()',
    ),
    expect: { kind: "CheckFailed", line: 2, hint: [/import/, NO_TYPES_NODE] },
  },
  {
    name: "require of path, unchecked",
    check: false,
    source: lines('const path = require("path");', 'path.join("a", "b")'),
    expect: { kind: "ScriptError", line: 1, hint: [/import/] },
  },
  // --- a timeout names the line that was executing ---
  {
    name: "timeout in a busy helper",
    timeoutMs: 1500,
    source: lines(
      "function spin() {",
      "  for (;;) {}",
      "}",
      "",
      "spin();",
    ),
    expect: { kind: "Timeout", line: 2, hint: [/exec\.timeoutMs|--timeout/] },
  },
  {
    name: "timeout awaiting a timer",
    timeoutMs: 1500,
    source: lines(
      "const started = Date.now();",
      "await new Promise((resolve) => setTimeout(resolve, 60_000));",
      "Date.now() - started",
    ),
    expect: { kind: "Timeout", line: 2, hint: [/exec\.timeoutMs|--timeout/] },
  },
  {
    name: "timeout awaiting a slow tool in a loop, unchecked",
    check: false,
    timeoutMs: 1500,
    source: lines(
      "for (const round of [1, 2]) {",
      "  console.log(round);",
      "  await tools.everything.trigger_long_running_operation({ duration: 10, steps: 2 });",
      "}",
    ),
    expect: { kind: "Timeout", line: 3, hint: [/exec\.timeoutMs|--timeout/] },
  },
  // --- stdin().json() on text that is not JSON ---
  {
    name: "stdin().json() on CSV inside a helper",
    stdin: "name,age\nada,36\n",
    source: lines(
      "function load() {",
      "  return stdin().json();",
      "}",
      "const rows = load();",
      "rows.length",
    ),
    expect: { kind: "ScriptError", line: 2, hint: [/not JSON/, /stdin\(\)\.(text|lines)\(\)/] },
  },
  {
    name: "stdin().json() on XML, unchecked",
    check: false,
    stdin: "<items><item>1</item></items>",
    source: lines("// read the feed", "", "const feed = stdin().json();", "feed.items"),
    expect: { kind: "ScriptError", line: 3, hint: [/not JSON/] },
  },
  // --- a bundled tool's failure lists what exists ---
  {
    name: "sqlite.query of a table that does not exist",
    source: lines(
      'await tools.sqlite.execute({ database: "m_orders", sql: "CREATE TABLE IF NOT EXISTS orders (id INTEGER, total REAL)" });',
      'await tools.sqlite.query({ database: "m_orders", sql: "SELECT * FROM customers" })',
    ),
    expect: { kind: "ToolError", line: 2, hint: [/customers/, /orders/] },
  },
  {
    name: "sqlite.query of a column that does not exist, unchecked",
    check: false,
    source: lines(
      'await tools.sqlite.execute({ database: "m_people", sql: "CREATE TABLE IF NOT EXISTS people (name TEXT, born INTEGER)" });',
      'await tools.sqlite.query({ database: "m_people", sql: "SELECT nme FROM people" })',
    ),
    expect: { kind: "ToolError", line: 2, hint: [/nme/, /\bname\b/, /\bborn\b/] },
  },
  {
    name: "fs.read of a file that does not exist",
    source: lines("// greet", 'await tools.fs.read({ path: "hello.md" })'),
    expect: { kind: "ToolError", line: 2, hint: [/hello\.md/, /hello\.txt/] },
  },
];
