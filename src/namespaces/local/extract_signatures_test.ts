import assert from "node:assert/strict";
import { type ExtractionOutcome, SignatureExtractor } from "./extract_signatures.ts";

const FIXTURES = new URL("../../../test/fixtures/tool_modules/", import.meta.url);
const extractor = new SignatureExtractor();

function fixture(name: string): string {
  return Deno.readTextFileSync(new URL(name, FIXTURES));
}

function ok(outcome: ExtractionOutcome): Extract<ExtractionOutcome, { ok: true }> {
  if (!outcome.ok) throw new Error(`expected success, got: ${outcome.reason} (${outcome.line})`);
  return outcome;
}

function tool(outcome: Extract<ExtractionOutcome, { ok: true }>, name: string) {
  const found = outcome.tools.find((t) => t.descriptor.originalName === name);
  if (found === undefined) throw new Error(`no tool "${name}"`);
  return found;
}

Deno.test("extract() lists every exported function with 0 or 1 parameter, sorted by name", () => {
  const outcome = ok(extractor.extract(fixture("inventory.ts")));
  assert.deepEqual(
    outcome.tools.map((t) => t.descriptor.originalName),
    ["count", "delete", "get", "list", "put", "total"],
  );
  assert.deepEqual(outcome.warnings, []);
});

Deno.test("extract() keeps written parameter types and unwraps Promise return types", () => {
  const outcome = ok(extractor.extract(fixture("inventory.ts")));
  const put = tool(outcome, "put").descriptor;
  assert.equal(put.inputType, "{ item: Item; overwrite?: boolean }");
  assert.equal(put.outputType, "Item");
  assert.equal(put.inputOptional, false);
  assert.equal(tool(outcome, "get").descriptor.outputType, "Item | null");
  assert.equal(tool(outcome, "delete").descriptor.outputType, "boolean");
});

Deno.test("extract() infers output types of unannotated functions", () => {
  const outcome = ok(extractor.extract(fixture("inventory.ts")));
  const count = tool(outcome, "count").descriptor;
  assert.equal(count.inputType, null);
  assert.equal(count.inputOptional, true);
  assert.equal(count.outputType, "{ total: number; skus: string[]; }");
});

Deno.test("extract() includes referenced declarations transitively, with JSDoc, in source order", () => {
  const { declarations } = ok(extractor.extract(fixture("inventory.ts")));
  const names = [...declarations.matchAll(/export (?:interface|type|enum) (\w+)/g)].map((m) =>
    m[1]
  );
  assert.deepEqual(names, ["Location", "Shelf", "Item", "Tag", "SortOrder", "ListOptions"]);
  assert.match(declarations, /\/\*\* Where an item is kept\. \*\/\nexport interface Location \{/);
  assert.match(
    declarations,
    /\/\*\* Warehouse code, e\.g\. "BER-1"\. \*\/\n {2}warehouse: string;/,
  );
  assert.match(declarations, /shelf\?: Shelf;/);
  assert.match(declarations, /export type Shelf = \{ row: number; column: number \};/);
  assert.doesNotMatch(declarations, /Unused/);
  assert.doesNotMatch(declarations, /@module/);
});

Deno.test("extract() puts the JSDoc main text and non-@param tags in the description", () => {
  const outcome = ok(extractor.extract(fixture("inventory.ts")));
  assert.equal(
    tool(outcome, "put").descriptor.description,
    "Adds an item or replaces the one with the same SKU.\n\n@returns The stored item.",
  );
  assert.equal(
    tool(outcome, "delete").descriptor.description,
    "Removes an item; exported under the reserved name `delete`.",
  );
});

Deno.test("extract() documents params from @param tags and property JSDoc", () => {
  const outcome = ok(extractor.extract(fixture("inventory.ts")));
  assert.deepEqual(tool(outcome, "put").descriptor.params, [
    { name: "item", description: "The item to store.", required: true },
    { name: "overwrite", description: "Replace an existing item (default true).", required: false },
  ]);
  assert.deepEqual(tool(outcome, "list").descriptor.params, [
    { name: "prefix", description: "Only items whose SKU starts with this.", required: false },
    { name: "order", description: "Ordering by SKU.", required: false },
  ]);
  assert.deepEqual(tool(outcome, "get").descriptor.params, [
    { name: "sku", description: "The SKU to find.", required: true },
  ]);
});

Deno.test("extract() marks an all-optional object argument optional and to be passed as {}", () => {
  const outcome = ok(extractor.extract(fixture("inventory.ts")));
  const list = tool(outcome, "list");
  assert.equal(list.descriptor.inputType, "ListOptions");
  assert.equal(list.descriptor.inputOptional, true);
  assert.equal(list.passEmptyObject, true);
  assert.equal(tool(outcome, "put").passEmptyObject, false);
});

Deno.test("extract() reports an export with two parameters with its line", () => {
  assert.deepEqual(extractor.extract(fixture("two_params.ts")), {
    ok: false,
    reason: `export "add" takes 2 parameters`,
    line: 9,
  });
});

Deno.test("extract() reports the first offending export in source order", () => {
  const text = `export const b = (x: number,\n  y: number) => x + y;\n` +
    `export function a(...rest: string[]) { return rest; }\n`;
  assert.deepEqual(extractor.extract(text), {
    ok: false,
    reason: `export "b" takes 2 parameters`,
    line: 1,
  });
  assert.deepEqual(extractor.extract(`export function a(...rest: string[]) { return rest; }`), {
    ok: false,
    reason: `export "a" takes a rest parameter`,
    line: 1,
  });
});

Deno.test("extract() reports a syntax error with its line", () => {
  assert.deepEqual(extractor.extract(fixture("syntax_error.txt")), {
    ok: false,
    reason: "syntax error: Expression expected",
    line: 4,
  });
});

Deno.test("extract() types imported names as unknown with a warning", () => {
  const text = `import type { Remote } from "./_types.ts";\n` +
    `export { helper } from "./_helpers.ts";\n` +
    `export default function main() {}\n` +
    `/** Reads. */\nexport function read(args: { id: string }): Promise<Remote[]> { return []; }\n`;
  const outcome = ok(extractor.extract(text));
  assert.deepEqual(outcome.tools.map((t) => t.descriptor.originalName), ["read"]);
  assert.equal(tool(outcome, "read").descriptor.outputType, "Remote[]");
  assert.match(outcome.declarations, /export type Remote = unknown;/);
  assert.deepEqual(outcome.warnings, [
    "the default export is not a tool: export the function by name",
    `exports re-exported from "./_helpers.ts" (line 2) are not tools: define or wrap them in ` +
    `this file`,
    `type "Remote" is imported from "./_types.ts" and cannot be shown to scripts: it is typed ` +
    `as unknown (declare it in this module to keep its shape)`,
  ]);
});

Deno.test("extract() handles destructured, defaulted, optional and generic parameters", () => {
  const text =
    `/**\n * Destructured.\n * @param root The options.\n * @param root.a The a.\n */\n` +
    `export function destr({ a }: { a: string; b?: number }) { return a; }\n` +
    `export const defaulted = (opts = { limit: 10 }) => opts.limit;\n` +
    `export const maybe = async (x?: number) => x ?? 0;\n` +
    `export function gen<T extends { id: string }>(x: T): T[] { return [x]; }\n`;
  const outcome = ok(extractor.extract(text));
  const destr = tool(outcome, "destr").descriptor;
  assert.equal(destr.description, "Destructured.\n\n@param root The options.");
  assert.deepEqual(destr.params, [
    { name: "a", description: "The a.", required: true },
    { name: "b", description: "", required: false },
  ]);
  assert.equal(tool(outcome, "defaulted").descriptor.inputOptional, true);
  assert.equal(tool(outcome, "defaulted").passEmptyObject, false);
  assert.equal(tool(outcome, "maybe").descriptor.inputOptional, true);
  assert.equal(tool(outcome, "maybe").descriptor.outputType, "number");
  assert.equal(tool(outcome, "gen").descriptor.inputType, "({ id: string })");
  assert.equal(tool(outcome, "gen").descriptor.outputType, "({ id: string })[]");
  assert.match(outcome.warnings.join("\n"), /export "gen" is generic/);
});

Deno.test("extract() ignores exports that are not functions", () => {
  const text = `export const VERSION = "1";\nexport class K {}\nexport interface I { a: 1 }\n` +
    `export function ping(): "pong" { return "pong"; }\n`;
  const outcome = ok(extractor.extract(text));
  assert.deepEqual(outcome.tools.map((t) => t.descriptor.originalName), ["ping"]);
  assert.equal(outcome.declarations, "");
});

Deno.test("extract() says where a string's value can decide whether an argument fits", () => {
  const outcome = ok(extractor.extract(`
enum Color { Red = "red", Blue = "blue" }
interface Query { text: string; limit?: number; tags?: readonly string[]; meta?: Record<string, string> }
interface Deep { outer: { inner: Array<{ mode: "a" | "b" }> } }
type Node = { name: string; children: Node[] };
/** a */ export function plain(args: Query): number { return 0; }
/** b */ export function literal(args: { mode: "fast" | "slow" }): number { return 0; }
/** c */ export function nested(args: Deep): number { return 0; }
/** d */ export function colored(args: { color: Color }): number { return 0; }
/** e */ export function templated(args: { id: \`user-\${string}\` }): number { return 0; }
/** f */ export function keyed(args: { key: keyof Query }): number { return 0; }
/** g */ export function listed(args: { modes: readonly ("x" | "y")[] }): number { return 0; }
/** h */ export function mapped(args: { byName: Record<string, "on" | "off"> }): number { return 0; }
/** i */ export function generic<T extends string>(args: { value: T }): number { return 0; }
/** j */ export function tree(args: Node): number { return 0; }
/** k */ export function none(): number { return 0; }
/** l */ export function loose(args: unknown): number { return 0; }
/** m */ export function fetched(args: { request: Request; signal?: AbortSignal }): number { return 0; }
`));
  const decides = Object.fromEntries(
    outcome.tools.map((t) => [t.descriptor.originalName, t.descriptor.stringValuesDecide]),
  );
  assert.deepEqual(decides, {
    colored: true,
    fetched: true,
    generic: true,
    keyed: true,
    listed: true,
    literal: true,
    loose: false,
    mapped: true,
    nested: true,
    none: false,
    plain: false,
    templated: true,
    tree: false,
  });
});
