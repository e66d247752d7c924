/**
 * The TUNING half of the wrong-script corpus: common model mistakes, each with the failure it
 * must produce (the kind, the line in the script's own text, and patterns the message must hold
 * so the fix takes one turn: the right name, the expected signature, the flag or config key to
 * change). Checks and hints are developed against this half; the measure half
 * (`wrong_scripts_measure.ts`, the same themes with other tools and shapes) is only measured.
 * @module
 */

/** One wrong script and the failure it must produce. */
export interface WrongScript {
  name: string;
  source: string;
  /** @default {true} */
  check?: boolean;
  stdin?: string;
  permissions?: Record<string, string[] | boolean>;
  timeoutMs?: number;
  callTimeoutMs?: number;
  maxToolCalls?: number;
  maxMemoryMb?: number;
  expect: {
    /** `error.kind`, or `Warning` for a run that succeeds with a warning. */
    kind: string;
    /** The line in the script's own text; null when no line applies (refused before start). */
    line: number | null;
    /** What the message (or hint, or warnings) must say. */
    hint: RegExp[];
  };
}

const lines = (...text: string[]) => text.join("\n");

/** Fails when the text recommends installing Node's type declarations. */
const NO_TYPES_NODE = /^(?![\s\S]*@types\/node)/;

/** The tuning half, in the order it runs. */
export const WRONG_SCRIPTS: readonly WrongScript[] = [
  // --- arguments that do not fit the tool (type check on) ---
  {
    name: "kv.set without value",
    source: lines('const key = "a";', "await tools.kv.set({ key });"),
    expect: {
      kind: "CheckFailed",
      line: 2,
      hint: [/tools\.kv\.set\(\{ key: string, value: JsonValue \}\)/],
    },
  },
  {
    name: "kv.get with a number key",
    source: "await tools.kv.get({ key: 1 })",
    expect: {
      kind: "CheckFailed",
      line: 1,
      hint: [/expected tools\.kv\.get\(\{ key: string \}\)/],
    },
  },
  {
    name: "kv.get with a string instead of an object",
    source: 'await tools.kv.get("todo")',
    expect: { kind: "CheckFailed", line: 1, hint: [/tools\.kv\.get\(\{ key: string \}\)/] },
  },
  {
    name: "kv.get with no argument",
    source: lines("// read it", "await tools.kv.get()"),
    expect: { kind: "CheckFailed", line: 2, hint: [/tools\.kv\.get\(\{ key: string \}\)/] },
  },
  {
    name: "everything.echo with a wrong property name",
    source: 'await tools.everything.echo({ msg: "hi" })',
    expect: {
      kind: "CheckFailed",
      line: 1,
      hint: [/'msg'/, /tools\.everything\.echo\(\{ message: string \}\)/],
    },
  },
  {
    name: "everything.get_sum with strings",
    source: lines("const a = '1';", "await tools.everything.get_sum({ a, b: 2 })"),
    expect: {
      kind: "CheckFailed",
      line: 2,
      hint: [/tools\.everything\.get_sum\(\{ a: number, b: number \}\)/],
    },
  },
  {
    name: "argument-less tool given a property",
    source: "await tools.everything.get_tiny_image({ size: 2 })",
    expect: { kind: "CheckFailed", line: 1, hint: [/tools\.everything\.get_tiny_image\(\)/] },
  },
  {
    name: "enum value out of range",
    source: 'await tools.everything.get_structured_content({ location: "Paris" })',
    expect: { kind: "CheckFailed", line: 1, hint: [/"New York" \| "Chicago" \| "Los Angeles"/] },
  },
  {
    name: "sqlite.query with db instead of database",
    source: lines(
      "const rows = await tools.sqlite.query({",
      '  db: "main",',
      '  sql: "SELECT 1",',
      "});",
    ),
    expect: {
      kind: "CheckFailed",
      line: 2,
      hint: [/tools\.sqlite\.query\(\{ database: string, sql: string, params\?: SqlParams \}\)/],
    },
  },
  {
    name: "memory.createEntities with a bare entity",
    source: 'await tools.memory.createEntities({ name: "ada", entityType: "person" })',
    expect: {
      kind: "CheckFailed",
      line: 1,
      hint: [/tools\.memory\.createEntities\(\{ entities: NewEntity\[\] \}\)/],
    },
  },
  {
    name: "fs.read with file instead of path",
    source: 'const text = await tools.fs.read({ file: "hello.txt" });\ntext',
    expect: { kind: "CheckFailed", line: 1, hint: [/tools\.fs\.read\(\{ path: string \}\)/] },
  },
  {
    name: "graph.create_entities missing observations",
    source: lines(
      "await tools.graph.create_entities({",
      '  entities: [{ name: "x", entityType: "y" }],',
      "});",
    ),
    expect: {
      kind: "CheckFailed",
      line: 2,
      hint: [/observations/, /tools\.graph\.create_entities\(/],
    },
  },
  {
    name: "files.read_text_file with filename",
    source: 'await tools.files.read_text_file({ filename: "a.txt" })',
    expect: {
      kind: "CheckFailed",
      line: 1,
      hint: [/tools\.files\.read_text_file\(\{ path: string/],
    },
  },
  {
    name: "raw() with a wrong argument",
    source: "await tools.kv.get.raw({ id: 3 })",
    expect: { kind: "CheckFailed", line: 1, hint: [/tools\.kv\.get\.raw\(\{ key: string \}\)/] },
  },
  // --- missing await ---
  {
    name: "property of an un-awaited tool call",
    source: lines('const value = tools.kv.get({ key: "todo" });', "value.length"),
    expect: { kind: "CheckFailed", line: 2, hint: [/await/] },
  },
  {
    name: "map over an un-awaited list",
    source: lines("const entries = tools.kv.list();", "entries.map((e) => e.key)"),
    expect: { kind: "CheckFailed", line: 2, hint: [/did you forget to use 'await'/i] },
  },
  {
    name: "structured result read without await",
    source: 'tools.everything.get_structured_content({ location: "Chicago" }).temperature',
    expect: { kind: "CheckFailed", line: 1, hint: [/\(await tools\.everything/] },
  },
  // --- names ---
  {
    name: "tool in the wrong namespace",
    source: 'await tools.kv.query({ sql: "SELECT 1" })',
    expect: { kind: "CheckFailed", line: 1, hint: [/tools\.sqlite\.query/, /"kv" has: .*get/] },
  },
  {
    name: "tool name typo",
    source: lines("// fetch", 'await tools.kv.gett({ key: "a" })'),
    expect: { kind: "CheckFailed", line: 2, hint: [/did you mean tools\.kv\.get\b/] },
  },
  {
    name: "camelCase for a snake_case MCP tool",
    source: "await tools.everything.getSum({ a: 1, b: 2 })",
    expect: { kind: "CheckFailed", line: 1, hint: [/tools\.everything\.get_sum/] },
  },
  {
    name: "unknown namespace",
    source: 'await tools.github.list_issues({ state: "open" })',
    expect: {
      kind: "CheckFailed",
      line: 1,
      hint: [/Unknown namespace "github"/, /namespaces are: .*kv/],
    },
  },
  {
    name: "namespace typo",
    source: 'await tools.everythin.echo({ message: "x" })',
    expect: { kind: "CheckFailed", line: 1, hint: [/tools\.everything/] },
  },
  {
    name: "namespace without tools.",
    source: lines('await kv.set({ key: "a", value: 1 });'),
    expect: { kind: "CheckFailed", line: 1, hint: [/tools\.kv\.set/] },
  },
  {
    name: "hyphenated original name written with a dot",
    source: "const env = 1;\nawait tools.everything.get-sum({ a: 1, b: env })",
    expect: {
      kind: "CheckFailed",
      line: 2,
      hint: [/tools\.everything\.get_sum\(/, /tools\.everything\["get-sum"\]/],
    },
  },
  {
    name: "Python True",
    source: 'await tools.kv.set({ key: "flag", value: True })',
    expect: { kind: "CheckFailed", line: 1, hint: [/\btrue\b/] },
  },
  {
    name: "Python None",
    source: lines("let cursor = None;", "cursor"),
    expect: { kind: "CheckFailed", line: 1, hint: [/\bnull\b/] },
  },
  {
    name: "Python False",
    source: "const done = False;\ndone",
    expect: { kind: "CheckFailed", line: 1, hint: [/\bfalse\b/] },
  },
  {
    name: "Python print",
    source: 'print("hello")',
    expect: { kind: "CheckFailed", line: 1, hint: [/console\.log/] },
  },
  {
    name: "console misspelled",
    source: lines("const n = 1;", "consol.log(n);"),
    expect: { kind: "CheckFailed", line: 2, hint: [/console/] },
  },
  {
    name: "unknown tool of a namespace that is down",
    source: lines("// the ghost server never starts", "await tools.ghost.do_something({})"),
    expect: { kind: "NamespaceUnavailable", line: 2, hint: [/ghost/, /failed/] },
  },
  // --- plain type errors ---
  {
    name: "assignment to a const",
    source: lines("const total = 0;", "total = 5;"),
    expect: { kind: "CheckFailed", line: 2, hint: [/\blet\b/] },
  },
  {
    name: "member of a union-typed tool result",
    source: lines('const todo = await tools.kv.get({ key: "todo" });', "todo.length"),
    expect: { kind: "CheckFailed", line: 2, hint: [/narrow the value first|check it first/] },
  },
  {
    name: "possibly null value used directly",
    source: lines("const found = [1, 2].find((n) => n > 5);", "found.toFixed(1)"),
    expect: { kind: "CheckFailed", line: 2, hint: [/`\?\.`|check it first/] },
  },
  {
    name: "destructuring Promise.all without await",
    source: lines(
      "const [a, b] = Promise.all([",
      '  tools.kv.get({ key: "a" }),',
      '  tools.kv.get({ key: "b" }),',
      "]);",
      "[a, b]",
    ),
    expect: { kind: "CheckFailed", line: 1, hint: [/add `await`/] },
  },
  {
    name: "string assigned to a number",
    source: lines("let count: number = 0;", 'count = "3";'),
    expect: { kind: "CheckFailed", line: 2, hint: [/not assignable to type 'number'/] },
  },
  {
    name: "markdown fence around a wrong call",
    source: lines("```ts", 'await tools.kv.gett({ key: "a" })', "```"),
    expect: { kind: "CheckFailed", line: 2, hint: [/tools\.kv\.get\b/, /fences/i] },
  },
  {
    name: "node: built-in used with the wrong types",
    source: lines(
      'import { readFileSync } from "node:fs";',
      'const size: number = readFileSync("./data/hello.txt", "utf8");',
      "size",
    ),
    expect: { kind: "CheckFailed", line: 2, hint: [/'string' is not assignable to type 'number'/] },
  },
  // --- syntax and grammar ---
  {
    name: "unclosed brace",
    source: lines(
      "const xs = [1, 2];",
      "for (const x of xs) {",
      "  console.log(x);",
      "",
      "xs.length",
    ),
    expect: { kind: "SyntaxError", line: 2, hint: [/'\{' opened at line 2 is never closed/] },
  },
  {
    name: "unclosed parenthesis",
    source: lines('console.log("a",', '  "b";', "1"),
    expect: { kind: "SyntaxError", line: 1, hint: [/'\(' opened at line 1/] },
  },
  {
    name: "top-level return",
    source: lines("const items = await tools.kv.list();", "return items.length;"),
    expect: { kind: "SyntaxError", line: 2, hint: [/write `items\.length` alone/] },
  },
  {
    name: "top-level return without check",
    check: false,
    source: lines("const n = 2;", "return n * 2;"),
    expect: { kind: "SyntaxError", line: 2, hint: [/last expression is its result/] },
  },
  {
    name: "await in a map callback",
    source: lines(
      'const keys = ["a", "b"];',
      "const values = keys.map((key) => await tools.kv.get({ key }));",
      "values",
    ),
    expect: {
      kind: "SyntaxError",
      line: 2,
      hint: [/make the callback passed to \.map\(\) `async`/, /Promise\.all/],
    },
  },
  {
    name: "await in a forEach callback without check",
    check: false,
    source: lines('["a"].forEach((key) => {', "  await tools.kv.get({ key });", "});"),
    expect: { kind: "SyntaxError", line: 2, hint: [/`async`/] },
  },
  {
    name: "for await in a plain function",
    source: lines(
      "function drain(xs: AsyncIterable<number>) {",
      "  for await (const x of xs) console.log(x);",
      "}",
    ),
    expect: { kind: "SyntaxError", line: 2, hint: [/make function `drain` `async`/] },
  },
  {
    name: "invalid regular expression flags without check",
    check: false,
    source: lines("// find", "const pattern = /a/gg;", "pattern"),
    expect: { kind: "SyntaxError", line: 2, hint: [/[Ii]nvalid regular expression flags/] },
  },
  {
    name: "relative import of a missing module without check",
    check: false,
    source: lines('import { helper } from "./helper.ts";', "helper()"),
    expect: { kind: "ScriptError", line: 1, hint: [/helper\.ts/, /inline/] },
  },
  {
    name: "npm import in the sandbox",
    source: lines('import leftPad from "npm:left-pad@1.3.0";', 'leftPad("x", 3)'),
    expect: { kind: "PermissionDenied", line: 1, hint: [/exec\.maxPermissions\.net/] },
  },
  // --- runtime failures (type check off: what a run without the check reports) ---
  {
    name: "unknown tool without check",
    check: false,
    source: lines("// wrong namespace", 'await tools.kv.query({ sql: "SELECT 1" })'),
    expect: { kind: "UnknownTool", line: 2, hint: [/sqlite\.query/, /"kv" has: /] },
  },
  {
    name: "unknown namespace without check",
    check: false,
    source: "await tools.gh.issues({})",
    expect: { kind: "UnknownTool", line: 1, hint: [/namespaces are: .*everything/] },
  },
  {
    name: "bad MCP argument without check",
    check: false,
    source: 'await tools.everything.get_sum({ a: "one", b: 2 })',
    expect: { kind: "InvalidToolInput", line: 1, hint: [/\/a\b|"a"|\ba\b.*number/] },
  },
  {
    name: "bad local argument without check",
    check: false,
    source: lines("const key = 42;", "await tools.kv.get({ key });"),
    expect: { kind: "InvalidToolInput", line: 2, hint: [/tools\.kv\.get\(\{ key: string \}\)/] },
  },
  {
    name: "missing local argument without check",
    check: false,
    source: 'await tools.kv.set({ key: "x" })',
    expect: { kind: "InvalidToolInput", line: 1, hint: [/'value'/, /tools\.kv\.set\(/] },
  },
  {
    name: "resources.read of an unknown namespace",
    source: lines("// resources", 'await resources.read("nope", "test://static/resource/1")'),
    expect: { kind: "UnknownTool", line: 2, hint: [/namespaces with resources are: .*everything/] },
  },
  {
    name: "True without check",
    check: false,
    source: lines("const enabled = True;", "enabled"),
    expect: { kind: "ScriptError", line: 1, hint: [/writes true/] },
  },
  {
    name: "namespace without tools. and without check",
    check: false,
    source: lines("", 'await kv.get({ key: "a" })'),
    expect: { kind: "ScriptError", line: 2, hint: [/tools\.kv\./] },
  },
  {
    name: "hyphenated name without check",
    check: false,
    source: "await tools.everything.get-env()",
    expect: { kind: "ScriptError", line: 1, hint: [/tools\.everything\["get-env"\]/] },
  },
  {
    name: "stdin().json() on empty stdin",
    source: lines("const input = stdin().json();", "input.items.length"),
    expect: { kind: "ScriptError", line: 2, hint: [/stdin was empty/] },
  },
  {
    name: "stdin().json() on text",
    stdin: "just some words",
    source: lines("// parse", "const data = stdin().json();", "data.n"),
    expect: { kind: "ScriptError", line: 2, hint: [/not JSON/, /stdin\(\)\.text\(\)/] },
  },
  {
    name: "thrown string",
    source: lines("const n = 3;", 'if (n > 2) throw "n is too large";', "n"),
    expect: { kind: "ScriptError", line: 2, hint: [/n is too large/, /new Error/] },
  },
  {
    name: "thrown plain object",
    source: lines("const failure = { code: 42 };", "", "throw failure;"),
    expect: { kind: "ScriptError", line: 3, hint: [/"code":42/, /new Error/] },
  },
  {
    name: "un-awaited failing call",
    check: false,
    source: lines('console.log("start");', "tools.kv.get({ key: 7 });", '"done"'),
    expect: { kind: "Warning", line: 2, hint: [/add `await` to the call on line 2/] },
  },
  {
    name: "describe() of an unknown tool",
    source: lines('const text = describe("tools.kv.gett");', "text"),
    expect: { kind: "ScriptError", line: 1, hint: [/tools\.kv\.get\b/] },
  },
  {
    name: "tool says no",
    source: lines("// a file that does not exist", 'await tools.fs.read({ path: "missing.txt" })'),
    expect: { kind: "ToolError", line: 2, hint: [/missing\.txt/] },
  },
  {
    name: "sqlite syntax error",
    source: 'await tools.sqlite.execute({ database: "corpus_err", sql: "SELEC 1" })',
    expect: { kind: "ToolError", line: 1, hint: [/SELEC|syntax/] },
  },
  {
    name: "policy denies a tool named by its identifier",
    source: lines("// debugging", "await tools.everything.get_env()"),
    expect: { kind: "PolicyDenied", line: 2, hint: [/everything\.get_env/, /gateway\.json/] },
  },
  // --- limits ---
  {
    name: "endless loop",
    timeoutMs: 1500,
    source: lines("let i = 0;", "while (true) {", "  i++;", "}"),
    expect: { kind: "Timeout", line: 2, hint: [/--timeout/, /exec\.timeoutMs/] },
  },
  {
    name: "run times out waiting for a tool",
    timeoutMs: 1500,
    source: lines(
      "// slow",
      "await tools.everything.trigger_long_running_operation({ duration: 10, steps: 1 });",
    ),
    expect: { kind: "Timeout", line: 2, hint: [/exec\.timeoutMs/, /trigger/] },
  },
  {
    name: "tool call times out",
    callTimeoutMs: 500,
    source: lines(
      "",
      "await tools.everything.trigger_long_running_operation({ duration: 5, steps: 1 });",
    ),
    expect: { kind: "ToolTimeout", line: 2, hint: [/exec\.callTimeoutMs/] },
  },
  {
    name: "too many tool calls",
    maxToolCalls: 5,
    source: lines("for (let i = 0; i < 10; i++) {", '  await tools.kv.get({ key: "a" });', "}"),
    expect: { kind: "ToolCallLimitExceeded", line: 2, hint: [/exec\.maxToolCalls/] },
  },
  {
    name: "memory grows without bound",
    maxMemoryMb: 96,
    source: lines(
      "const hoard: number[][] = [];",
      "while (true) hoard.push(new Array(1e6).fill(1));",
    ),
    expect: { kind: "MemoryLimit", line: 2, hint: [/exec\.maxMemoryMb/] },
  },
  // --- permissions ---
  {
    name: "file read not granted but allowed by the ceiling",
    source: lines("", 'await Deno.readTextFile("./data/hello.txt")'),
    expect: {
      kind: "PermissionDenied",
      line: 2,
      hint: [/not granted to this run; ask for it with --allow-read=/],
    },
  },
  {
    name: "file read beyond the ceiling",
    source: 'Deno.readTextFileSync("/etc/hostname")',
    expect: {
      kind: "PermissionDenied",
      line: 1,
      hint: [/exec\.maxPermissions\.read/, /allowed: read/],
    },
  },
  {
    name: "network beyond the ceiling",
    source: lines("// fetch", 'await fetch("https://example.com/")'),
    expect: { kind: "PermissionDenied", line: 2, hint: [/exec\.maxPermissions\.net/] },
  },
  {
    name: "env read allowed by the ceiling",
    source: 'Deno.env.get("CORPUS_FLAG")',
    expect: { kind: "PermissionDenied", line: 1, hint: [/--allow-env=CORPUS_FLAG/] },
  },
  {
    name: "grant asked beyond the ceiling",
    permissions: { read: ["/etc"] },
    source: "1",
    expect: { kind: "PermissionRefused", line: null, hint: [/allows: read .*data/] },
  },
  // --- themes of realistic mistakes: each on the checked and the unchecked path ---
  {
    name: "nested entity with type instead of entityType",
    source: lines(
      "await tools.graph.create_entities({",
      '  entities: [{ name: "ada", type: "person", observations: [] }],',
      "});",
    ),
    expect: { kind: "CheckFailed", line: 2, hint: [/entityType/, /observations/] },
  },
  {
    name: "nested relation with relation instead of relationType",
    source: lines(
      "const relations = [",
      '  { from: "a", to: "b", relation: "likes" },',
      "];",
      "await tools.memory.createRelations({ relations });",
    ),
    expect: { kind: "CheckFailed", line: 4, hint: [/relationType/] },
  },
  {
    name: "nested entity with type instead of entityType, unchecked",
    check: false,
    source: lines(
      "// store a person",
      'await tools.memory.createEntities({ entities: [{ name: "ada", type: "person" }] });',
    ),
    expect: { kind: "InvalidToolInput", line: 2, hint: [/entityType/] },
  },
  {
    name: "nested relation with type instead of relationType, MCP, unchecked",
    check: false,
    source: lines(
      "await tools.graph.create_relations({",
      '  relations: [{ from: "a", to: "b", type: "knows" }],',
      "});",
    ),
    expect: { kind: "InvalidToolInput", line: 1, hint: [/relationType/] },
  },
  {
    name: "sqlite.query with a string as params",
    source: lines(
      'const name = "ada";',
      'await tools.sqlite.query({ database: "t_alias", sql: "SELECT ? AS n", params: name })',
    ),
    expect: { kind: "CheckFailed", line: 2, hint: [/SqlParams/, /SqlParam\[\]/] },
  },
  {
    name: "kv.set with a function as value",
    source: 'await tools.kv.set({ key: "f", value: () => 1 })',
    expect: { kind: "CheckFailed", line: 1, hint: [/JsonValue/, /string \| number \| boolean/] },
  },
  {
    name: "sqlite.execute with a string as params, unchecked",
    check: false,
    source: lines(
      "// insert",
      'await tools.sqlite.execute({ database: "t_alias", sql: "SELECT ?", params: "x" })',
    ),
    expect: { kind: "InvalidToolInput", line: 2, hint: [/params/, /array/] },
  },
  {
    name: "map over memory.readGraph's object",
    source: lines(
      "const graph = await tools.memory.readGraph();",
      "const names = graph.map((e) => e.name);",
      "names",
    ),
    expect: { kind: "CheckFailed", line: 2, hint: [/entities/, /relations/] },
  },
  {
    name: "map over memory.readGraph's object, unchecked",
    check: false,
    source: lines(
      "const graph = await tools.memory.readGraph();",
      "graph.map((e) => e.name)",
    ),
    expect: { kind: "ScriptError", line: 2, hint: [/entities/, /relations/] },
  },
  {
    name: "length of graph.search_nodes' object used as an array, unchecked",
    check: false,
    source: lines(
      'const hits = await tools.graph.search_nodes({ query: "x" });',
      "for (const hit of hits) console.log(hit);",
    ),
    expect: { kind: "ScriptError", line: 2, hint: [/entities/, /relations/] },
  },
  {
    name: "join of an un-awaited kv.list, unchecked",
    check: false,
    source: lines(
      "const entries = tools.kv.list();",
      'const text = entries.join(", ");',
      "text",
    ),
    expect: { kind: "ScriptError", line: 2, hint: [/await/] },
  },
  {
    name: "filter of an un-awaited memory.readGraph's entities, unchecked",
    check: false,
    source: lines(
      "const graph = tools.memory.readGraph();",
      "graph.entities.filter((e) => e.name)",
    ),
    expect: { kind: "ScriptError", line: 2, hint: [/await/] },
  },
  {
    name: "require of node:fs",
    source: lines('const { readFileSync } = require("node:fs");', 'readFileSync("x", "utf8")'),
    expect: { kind: "CheckFailed", line: 1, hint: [/import/, /tools\.fs/, NO_TYPES_NODE] },
  },
  {
    name: "require of fs, unchecked",
    check: false,
    source: lines("// read", 'const fs = require("fs");', 'fs.readFileSync("x", "utf8")'),
    expect: { kind: "ScriptError", line: 2, hint: [/import/, /tools\.fs/] },
  },
  {
    name: "timeout awaiting a timer in a loop",
    timeoutMs: 1500,
    source: lines(
      "for (let i = 0; i < 3; i++) {",
      "  await new Promise((r) => setTimeout(r, 30_000));",
      "}",
    ),
    expect: { kind: "Timeout", line: 2, hint: [/exec\.timeoutMs/] },
  },
  {
    name: "timeout in a busy loop, unchecked",
    check: false,
    timeoutMs: 1500,
    source: lines("// spin", "let x = 0;", "while (x >= 0) x = (x + 1) % 10;"),
    expect: { kind: "Timeout", line: 3, hint: [/exec\.timeoutMs/] },
  },
  {
    name: "stdin().json() on YAML, destructured",
    stdin: "items:\n  - 1\n",
    source: lines("", "", "const { items } = stdin().json();", "items"),
    expect: { kind: "ScriptError", line: 3, hint: [/not JSON/, /stdin\(\)\.text\(\)/] },
  },
  {
    name: "stdin().json() on words in a function, unchecked",
    check: false,
    stdin: "hello there",
    source: lines("const read = () => {", "  return stdin().json();", "};", "read()"),
    expect: { kind: "ScriptError", line: 2, hint: [/not JSON/] },
  },
  {
    name: "sqlite.query of a missing users table",
    source: lines(
      'await tools.sqlite.execute({ database: "t_users", sql: "CREATE TABLE IF NOT EXISTS accounts (id INTEGER)" });',
      'await tools.sqlite.query({ database: "t_users", sql: "SELECT * FROM users" })',
    ),
    expect: { kind: "ToolError", line: 2, hint: [/no such table: users/, /accounts/] },
  },
  {
    name: "sqlite.execute into a missing table, unchecked",
    check: false,
    source: lines(
      'await tools.sqlite.execute({ database: "t_items", sql: "CREATE TABLE IF NOT EXISTS items (id INTEGER)" });',
      'await tools.sqlite.execute({ database: "t_items", sql: "INSERT INTO item VALUES (1)" })',
    ),
    expect: { kind: "ToolError", line: 2, hint: [/item\b/, /items/] },
  },
  {
    name: "fs.read of a missing file lists the directory",
    source: 'await tools.fs.read({ path: "hello.text" })',
    expect: { kind: "ToolError", line: 1, hint: [/hello\.txt/] },
  },
  {
    name: "sqlite.query of a missing column",
    source: lines(
      'await tools.sqlite.execute({ database: "t_cols", sql: "CREATE TABLE IF NOT EXISTS pets (name TEXT, age INTEGER)" });',
      'await tools.sqlite.query({ database: "t_cols", sql: "SELECT years FROM pets" })',
    ),
    expect: { kind: "ToolError", line: 2, hint: [/years/, /\bage\b/] },
  },
];
