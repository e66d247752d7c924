/**
 * JSON Schema (as MCP tools declare inputs and outputs) → TypeScript declarations, through
 * `json-schema-to-typescript` after a normalising pass of our own.
 * @module
 */

import { createHash } from "node:crypto";
import { join } from "node:path";
import type { JsonSchema } from "../namespace.ts";
import { LEAN_PROCESS, PROJECT_CONFIG, WorkerClient } from "../../process/worker_client.ts";
import { generateDeclarations } from "./generate_declarations.ts";
import type { SchemaRenderRequest, SchemaRenderResponse } from "./schema_render_worker.ts";

/**
 * Part of every disk cache key: change it whenever the rendering changes (the generator's
 * version, its options, the passes before and after it), so no stale entry is ever read.
 */
const RENDERING = "json-schema-to-typescript@16.0.0/1";

let diskCache: string | null = null;

/**
 * Keeps rendered schemas in `dir` (null: nowhere) across restarts, keyed by the schema, the type
 * name and the rendering: a server whose upstreams' schemas did not change never loads the
 * generator, nor lodash, prettier and js-yaml under it (≈ 8 MB of its idle memory, issue 12).
 */
export function cacheRenderedSchemasIn(dir: string | null): void {
  diskCache = dir;
}

/** Renders in a child process; null renders in this process (tests, one-shot tools). */
let renderInChild: ((normalized: JsonSchema, typeName: string) => Promise<string>) | null = null;

/**
 * Renders schemas in a child process from now on (the server does): the generator and lodash,
 * prettier and js-yaml under it (≈ 13 MB private that a module never gives back) leave with
 * the process, which exits after `idleMs` without work, so a first start ends with the memory
 * of a restart (issue 12). Returns the function that ends the process (server shutdown).
 */
export function renderSchemasInChildProcess(
  options: { idleMs?: number; timeoutMs?: number } = {},
): () => Promise<void> {
  const client = new WorkerClient<SchemaRenderRequest, SchemaRenderResponse>({
    url: new URL("./schema_render_worker.ts", import.meta.url),
    process: {
      config: PROJECT_CONFIG,
      // The generator's packages read the CPU count as they load (`os.cpus()`).
      permissions: ["--allow-read", "--allow-env", "--allow-sys=cpus"],
      ...LEAN_PROCESS,
    },
    crashed: (message) =>
      new Error(`Cannot render schema types: the render process failed: ${message}`),
    timedOut: (ms) => new Error(`Cannot render schema types: took longer than ${ms} ms`),
    // Renders come in one burst per catalogue (a connect, a list change): gone soon after.
    idleMs: options.idleMs ?? 300,
  });
  const timeoutMs = options.timeoutMs ?? 60_000;
  const render = async (normalized: JsonSchema, typeName: string): Promise<string> => {
    const answer = await client.request({ schema: normalized, typeName }, { timeoutMs });
    if ("error" in answer) throw new Error(answer.error);
    return answer.declarations;
  };
  renderInChild = render;
  return async () => {
    if (renderInChild === render) renderInChild = null;
    await client.stop(new Error("Cannot render schema types: the gateway is stopping"));
  };
}

/** One schema rendered: the name of its root type and the declarations that define it. */
export interface RenderedSchema {
  /** Name of the root type, declared in `declarations`. */
  typeName: string;
  /** `export interface …` / `export type …` text, meant for `declare namespace <ns> { … }`. */
  declarations: string;
}

/**
 * PascalCase type-name stem for a tool name: `get-sum` → `GetSum`, `read_file` → `ReadFile`,
 * `3d` → `_3d`. Callers add a suffix (`Input`, `Output`) and make it unique.
 */
export function typeNameFor(name: string): string {
  const stem = name.split(/[^A-Za-z0-9]+/).filter((part) => part !== "")
    .map((part) => part[0]?.toUpperCase() + part.slice(1)).join("");
  if (stem === "") return "Tool";
  return /^[0-9]/.test(stem) ? `_${stem}` : stem;
}

/**
 * Renders `schema` as TypeScript declarations with root type `typeName`. It handles `$ref` into
 * `$defs`/`definitions` (named `<typeName><Def>`, so two tools' definitions never clash),
 * `allOf`/`anyOf`/`oneOf`, `enum`, `const`, tuples (`prefixItems` and `items` arrays), nested
 * objects as nested types, optional versus required properties, `additionalProperties`, and
 * `description`/`default`/`format` as JSDoc.
 *
 * `json-schema-to-typescript` does most of the work; the pass before it makes up for what it
 * lacks or gets wrong for upstream schemas: it ignores `prefixItems` and `default`/`format`,
 * names types after `title`/`$id` (pydantic titles every property, so tools would collide), fails
 * on external `$ref`s, and honours `tsType`/`tsEnumNames`, which would let an upstream inject
 * arbitrary TypeScript. Rejects when the schema cannot be rendered (e.g. a dangling `$ref`).
 *
 * @example
 * ```ts
 * import { schemaToTypeScript } from "./schema_to_typescript.ts";
 * import assert from "node:assert/strict";
 * const schema = { type: "object", properties: { message: { type: "string" } } };
 * const { declarations } = await schemaToTypeScript(schema, { typeName: "EchoInput" });
 * assert.equal(declarations, "export interface EchoInput {\n  message?: string;\n}");
 * ```
 */
export async function schemaToTypeScript(
  schema: JsonSchema,
  options: { typeName: string },
): Promise<RenderedSchema> {
  const normalized = normalizeRoot(schema, options.typeName);
  const dir = diskCache;
  const cached = dir === null ? null : join(
    dir,
    `${
      createHash("sha256").update(JSON.stringify([RENDERING, options.typeName, normalized]))
        .digest("hex")
    }.ts`,
  );
  if (cached !== null) {
    try {
      return { typeName: options.typeName, declarations: await Deno.readTextFile(cached) };
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  // The generator loads on first use (≈ 20 MB and ≈ 100 ms), in the render process when the
  // server set one up: a root without MCP namespaces never needs it, and the server answers
  // before its namespaces render their types.
  const declarations = renderInChild === null
    ? await generateDeclarations(normalized, options.typeName)
    : await renderInChild(normalized, options.typeName);
  const rendered = tidyDeclarations(declarations.trim());
  if (dir !== null && cached !== null) {
    // Written aside and renamed into place: a reader sees a whole entry or none.
    await Deno.mkdir(dir, { recursive: true });
    const temporary = `${cached}.${Deno.pid}.${crypto.randomUUID()}.tmp`;
    await Deno.writeTextFile(temporary, rendered);
    await Deno.rename(temporary, cached);
  }
  return { typeName: options.typeName, declarations: rendered };
}

/** Open `{` on the stack: the indentation depth (parentheses and brackets do not indent). */
function braces(stack: readonly string[]): number {
  return stack.filter((open) => open === "{").length;
}

/**
 * Ends each member of an object type with `;` and indents by nesting depth. The generator's
 * unformatted output separates members by newlines only, which breaks as soon as a renderer joins
 * a type onto one line (`{ a: string b: number }`); prettier (its `format` option) is too heavy
 * for the request path.
 */
export function tidyDeclarations(text: string): string {
  const closers = new Set(["}", ")", "]"]);
  const noSemicolonAfter = new Set(["{", "(", "[", "|", "&", ",", ":", ";", "=", "<", ""]);
  const stack: string[] = [];
  let out = "";
  let last = ""; // last significant character written, outside comments
  let lineStart = true;
  for (let i = 0; i < text.length; i++) {
    const char = text[i] ?? "";
    if (lineStart) {
      if (char === " " || char === "\t") continue;
      if (char === "\n") {
        out += "\n";
        continue;
      }
      const depth = Math.max(0, braces(stack) - (char === "}" ? 1 : 0));
      out += "  ".repeat(depth);
      lineStart = false;
    }
    if (char === '"' || char === "'") {
      let end = i + 1;
      while (end < text.length && text[end] !== char) end += text[end] === "\\" ? 2 : 1;
      out += text.slice(i, end + 1);
      i = end;
      last = char;
      continue;
    }
    if (char === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      const comment = end === -1 ? text.slice(i) : text.slice(i, end + 2);
      // Re-indent the comment's own lines with the rest.
      const depth = "  ".repeat(braces(stack));
      out += comment.split("\n").map((line, n) => (n === 0 ? line : `${depth} ${line.trim()}`))
        .join("\n");
      i = end === -1 ? text.length : end + 1;
      continue;
    }
    if (char === "\n") {
      if (stack.at(-1) === "{" && !noSemicolonAfter.has(last)) {
        out += ";";
        last = ";";
      }
      out += "\n";
      lineStart = true;
      continue;
    }
    if (char === "{" || char === "(" || char === "[") stack.push(char);
    else if (closers.has(char)) stack.pop();
    out += char;
    if (char !== " " && char !== "\t") last = char;
  }
  return out;
}

type SchemaNode = JsonSchema | boolean;

/** Keywords whose value is one subschema. */
const SCHEMA_KEYWORDS = [
  "additionalProperties",
  "additionalItems",
  "contains",
  "not",
  "if",
  "then",
  "else",
  "propertyNames",
  "unevaluatedProperties",
  "unevaluatedItems",
];
/** Keywords whose value is a list of subschemas. */
const SCHEMA_LIST_KEYWORDS = ["allOf", "anyOf", "oneOf"];
/** Keywords whose value maps names to subschemas. */
const SCHEMA_MAP_KEYWORDS = [
  "properties",
  "patternProperties",
  "$defs",
  "definitions",
  "dependentSchemas",
];
/** Keywords dropped: naming hints that would clash, and generator directives. */
const DROPPED_KEYWORDS = [
  "title",
  "$id",
  "$schema",
  "$anchor",
  "$comment",
  "tsType",
  "tsEnumNames",
  "tsEnumName",
];

function normalizeRoot(schema: JsonSchema, typeName: string): JsonSchema {
  const refs = new Map<string, string>();
  for (const keyword of ["$defs", "definitions"]) {
    const defs = schema[keyword];
    if (!isObject(defs)) continue;
    for (const key of Object.keys(defs)) {
      const renamed = `${typeName}${typeNameFor(key)}`;
      const pointer = key.replaceAll("~", "~0").replaceAll("/", "~1");
      refs.set(`#/${keyword}/${pointer}`, `#/$defs/${renamed}`);
      refs.set(`#/${keyword}/${encodeURIComponent(pointer)}`, `#/$defs/${renamed}`);
    }
  }
  const root = normalizeNode(schema, { refs, renameDefs: true, typeName });
  if (!isObject(root)) return {};
  // The generator refuses a schema holding both; at the root they are merged into `$defs`.
  if (isObject(root.definitions)) {
    root.$defs = { ...root.definitions, ...(isObject(root.$defs) ? root.$defs : {}) };
    delete root.definitions;
  }
  return root;
}

interface NormalizeContext {
  refs: Map<string, string>;
  renameDefs: boolean;
  typeName: string;
}

function normalizeNode(node: unknown, context: NormalizeContext): SchemaNode {
  if (typeof node === "boolean") return node;
  if (!isObject(node)) return {};
  const inner = { ...context, renameDefs: false };
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (DROPPED_KEYWORDS.includes(key) || (key === "id" && typeof value === "string")) continue;
    if (SCHEMA_KEYWORDS.includes(key)) {
      out[key] = normalizeNode(value, inner);
    } else if (SCHEMA_LIST_KEYWORDS.includes(key) && Array.isArray(value)) {
      out[key] = value.map((item) => normalizeNode(item, inner));
    } else if (SCHEMA_MAP_KEYWORDS.includes(key) && isObject(value)) {
      const rename = context.renameDefs && (key === "$defs" || key === "definitions");
      out[key] = Object.fromEntries(
        Object.entries(value).map((
          [name, sub],
        ) => [
          rename ? `${context.typeName}${typeNameFor(name)}` : name,
          normalizeNode(sub, inner),
        ]),
      );
    } else if (key === "items") {
      out.items = Array.isArray(value)
        ? value.map((item) => normalizeNode(item, inner))
        : normalizeNode(value, inner);
    } else if (key === "dependencies" && isObject(value)) {
      out.dependencies = Object.fromEntries(
        Object.entries(value).map((
          [name, dep],
        ) => [name, Array.isArray(dep) ? dep : normalizeNode(dep, inner)]),
      );
    } else if (key !== "prefixItems" && key !== "$ref") {
      out[key] = value;
    }
  }
  // Draft 2020-12 tuples: prefixItems + items → the draft-07 items array + additionalItems.
  if (Array.isArray(node.prefixItems)) {
    out.items = node.prefixItems.map((item) => normalizeNode(item, inner));
    if (node.items !== undefined && !Array.isArray(node.items)) {
      out.additionalItems = normalizeNode(node.items, inner);
    } else delete out.additionalItems;
  }
  if (typeof node.$ref === "string") {
    const ref = context.refs.get(node.$ref) ?? node.$ref;
    if (ref.startsWith("#")) out.$ref = ref;
    else {
      // Never fetched (no network at type time): the value is typed as unknown. Upstream
      // `tsType` was dropped above, so this one is ours.
      addDoc(out, `(unresolved reference "${ref}")`);
      out.tsType = "unknown";
    }
  }
  if (isOpenObject(out)) out.additionalProperties = true;
  if (node.default !== undefined) addDoc(out, `@default ${shortJson(node.default)}`);
  if (typeof node.format === "string") addDoc(out, `@format ${node.format}`);
  if (typeof node.minItems === "number" && node.minItems > 0) {
    addDoc(out, `At least ${node.minItems} item${node.minItems === 1 ? "" : "s"}.`);
  }
  if (typeof node.maxItems === "number") {
    addDoc(out, `At most ${node.maxItems} item${node.maxItems === 1 ? "" : "s"}.`);
  }
  return out;
}

/** An object schema that says nothing about its keys: any keys, so an index signature. */
function isOpenObject(schema: JsonSchema): boolean {
  const type = schema.type;
  const isObjectType = type === "object" || (Array.isArray(type) && type.includes("object"));
  return isObjectType &&
    ["properties", "patternProperties", "additionalProperties", "allOf", "anyOf", "oneOf", "$ref"]
      .every((key) => schema[key] === undefined);
}

function addDoc(schema: JsonSchema, line: string): void {
  const description = typeof schema.description === "string" ? schema.description : "";
  schema.description = description === "" ? line : `${description}\n${line}`;
}

function shortJson(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

function isObject(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
