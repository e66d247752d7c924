/**
 * JSON Schema → TypeScript declarations, for every namespace kind: MCP tools' input and output
 * schemas, an OpenAPI document's schemas, and GraphQL types (converted to JSON Schema first).
 * One synchronous renderer in the server's own process: a named schema (a document's
 * `components.schemas`, a tool schema's `$defs`) becomes one named type, declared once however
 * often it is reached, so a document of a thousand operations renders each shared type once.
 *
 * It renders `$ref` (named types, other document pointers inlined, a cycle through inlined
 * pointers as `unknown`), `allOf` as `&`, `anyOf`/`oneOf` as `|`, `enum` and `const` as
 * literals, tuples (`prefixItems` and draft-07 `items` arrays, with a rest element), OpenAPI
 * 3.0 `nullable`, object properties (required or optional) with `additionalProperties` and
 * `patternProperties` as an index signature, and `description`/`format`/`default`/`deprecated`
 * and array bounds as JSDoc. Upstream text reaches the output only as JSON string literals,
 * quoted property names or escaped comments, and type names only through
 * {@linkcode typeNameFor}: a schema cannot inject TypeScript.
 * @module
 */

import { asRecord } from "./as_record.ts";

/** Schemas of one document that are reached by name: `$ref`s of `prefix` + key. */
export interface NamedSchemas {
  /** The `$ref` prefix, e.g. `#/components/schemas/` or `#/$defs/`. */
  prefix: string;
  schemas: Readonly<Record<string, unknown>>;
  /** The type-name stem of the schema under `key`; the renderer makes it unique. */
  stem(key: string): string;
}

/** What a document's schemas said that the types could not follow. */
export interface SchemaNotes {
  /** `$ref`s that point nowhere in the document, or to another document; typed `unknown`. */
  danglingRefs: Set<string>;
}

/** Deeper than this, a schema is typed `unknown` (a hostile upstream cannot exhaust the stack). */
const MAX_DEPTH = 64;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * PascalCase type-name stem for a tool or schema name: `get-sum` → `GetSum`, `read_file` →
 * `ReadFile`, `3d` → `_3d`. Callers add a suffix (`Input`, `Output`) and make it unique.
 */
export function typeNameFor(name: string): string {
  const stem = name.split(/[^A-Za-z0-9]+/).filter((part) => part !== "")
    .map((part) => part[0]?.toUpperCase() + part.slice(1)).join("");
  if (stem === "") return "Tool";
  return /^[0-9]/.test(stem) ? `_${stem}` : stem;
}

/**
 * The type names of one namespace and the named schemas its types reached: each name is given
 * once ({@linkcode uniqueTypeName}), each reached named schema declared once
 * ({@linkcode declarations}). Schemas are read through a {@linkcode SchemaDocument} made by
 * {@linkcode document}, which resolves `$ref`s within its root.
 *
 * @example
 * ```ts
 * import { SchemaTypes } from "./schema_types.ts";
 * import assert from "node:assert/strict";
 * const types = new SchemaTypes();
 * const schema = {
 *   type: "object",
 *   properties: { tag: { $ref: "#/$defs/tag" } },
 *   required: ["tag"],
 *   $defs: { tag: { enum: ["a", "b"] } },
 * };
 * const input = types.document(schema, [
 *   { prefix: "#/$defs/", schemas: schema.$defs, stem: (key) => `Label${key}` },
 * ]);
 * assert.equal(
 *   input.declaration("LabelInput", schema),
 *   "export interface LabelInput {\n  tag: Labeltag;\n}",
 * );
 * assert.equal(types.declarations(), 'export type Labeltag = "a" | "b";');
 * ```
 */
export class SchemaTypes {
  readonly #used = new Set<string>();
  /** Named types reached and not yet declared, with how to render each. */
  readonly #pending: Array<{ typeName: string; render: () => { type: string; doc: string } }> = [];
  readonly #reached = new Set<string>();

  /** `reserved`: names taken already (declared elsewhere in the namespace). */
  constructor(reserved: Iterable<string> = []) {
    for (const name of reserved) this.#used.add(name);
  }

  /** Reserves and returns a type name not used yet (`Stem`, `Stem2`, …). */
  uniqueTypeName(stem: string): string {
    let candidate = stem;
    for (let n = 2; this.#used.has(candidate); n++) candidate = `${stem}${n}`;
    this.#used.add(candidate);
    return candidate;
  }

  /**
   * A document whose `$ref`s resolve within `root`: its `named` schemas get their type names
   * now, in order (so the same document always gets the same names); `self` names the type a
   * `$ref` of `#` (the root itself) stands for.
   */
  document(
    root: unknown,
    named: readonly NamedSchemas[] = [],
    options: { self?: string } = {},
  ): SchemaDocument {
    return new SchemaDocument(this, root, named, options.self);
  }

  /**
   * Marks named type `typeName` as used: the next {@linkcode declarations} declares it (once,
   * however often it is reached). Called by the documents as they render.
   */
  reach(typeName: string, render: () => { type: string; doc: string }): void {
    if (this.#reached.has(typeName)) return;
    this.#reached.add(typeName);
    this.#pending.push({ typeName, render });
  }

  /** The declarations of every named type reached since the last call (and what they reach). */
  declarations(): string {
    const out: string[] = [];
    for (let next = this.#pending.shift(); next !== undefined; next = this.#pending.shift()) {
      const { type, doc } = next.render();
      out.push(declaration(next.typeName, type, doc));
    }
    return out.join("\n");
  }
}

/** One document's schemas as TypeScript: see {@linkcode SchemaTypes.document}. */
export class SchemaDocument {
  /** What the document's schemas said that the types could not follow. */
  readonly notes: SchemaNotes = { danglingRefs: new Set() };
  readonly #types: SchemaTypes;
  readonly #root: unknown;
  readonly #self: string | undefined;
  /** Named schemas by `$ref` prefix, then by key. */
  readonly #named = new Map<string, Map<string, { typeName: string; schema: unknown }>>();

  constructor(
    types: SchemaTypes,
    root: unknown,
    named: readonly NamedSchemas[],
    self: string | undefined,
  ) {
    this.#types = types;
    this.#root = root;
    this.#self = self;
    for (const group of named) {
      const byKey = this.#named.get(group.prefix) ?? new Map();
      for (const [key, schema] of Object.entries(group.schemas)) {
        if (!byKey.has(key)) {
          byKey.set(key, { typeName: types.uniqueTypeName(group.stem(key)), schema });
        }
      }
      this.#named.set(group.prefix, byKey);
    }
  }

  /** The TypeScript type expression of `schema`; named schemas render as their type name. */
  typeOf(schema: unknown, indent = ""): string {
    return this.#render(schema, { indent, inlining: new Set(), depth: 0 });
  }

  /** `schema` declared as `typeName` (see {@linkcode declaration}), its docs as the JSDoc. */
  declaration(typeName: string, schema: unknown): string {
    return declaration(typeName, this.typeOf(schema), docOf(schema));
  }

  /** The named schema a `$ref` points at (one step under a named prefix), if any. */
  namedRef(ref: string): { key: string; typeName: string; schema: unknown } | undefined {
    for (const [prefix, byKey] of this.#named) {
      if (!ref.startsWith(prefix)) continue;
      const rest = ref.slice(prefix.length);
      if (rest.includes("/")) continue;
      const key = unescapePointer(rest);
      const entry = key === undefined ? undefined : byKey.get(key);
      if (key !== undefined && entry !== undefined) return { key, ...entry };
    }
    return undefined;
  }

  /** Follows a document-internal `$ref` (any JSON pointer); undefined when it points nowhere. */
  resolvePointer(ref: string): unknown {
    if (!ref.startsWith("#")) return undefined;
    let node: unknown = this.#root;
    for (const raw of ref.slice(1).split("/").slice(1)) {
      const key = unescapePointer(raw);
      const record = asRecord(node);
      if (key === undefined) return undefined;
      if (record !== undefined && Object.hasOwn(record, key)) node = record[key];
      else if (Array.isArray(node) && /^\d+$/.test(key)) node = node[Number(key)];
      else return undefined;
    }
    return node;
  }

  #render(schema: unknown, at: RenderContext): string {
    if (schema === true || schema === undefined) return "unknown";
    if (schema === false) return "never";
    const node = asRecord(schema);
    if (node === undefined || at.depth > MAX_DEPTH) return "unknown";
    const inner = { ...at, depth: at.depth + 1 };
    const parts: string[] = [];
    if (typeof node.$ref === "string") parts.push(this.#refType(node.$ref, inner));
    if (Object.hasOwn(node, "const")) parts.push(literal(node.const));
    else if (Array.isArray(node.enum) && node.enum.length > 0) {
      parts.push([...new Set(node.enum.map(literal))].join(" | "));
    } else {
      if (Array.isArray(node.allOf) && node.allOf.length > 0) {
        const all = node.allOf.map((s) => this.#render(s, inner));
        parts.push(all.length === 1 ? all[0]! : all.map(wrap).join(" & "));
      }
      for (const key of ["anyOf", "oneOf"] as const) {
        const list = node[key];
        if (Array.isArray(list) && list.length > 0) {
          parts.push([...new Set(list.map((s) => this.#render(s, inner)))].join(" | "));
        }
      }
      const own = this.#renderOwn(node, inner);
      if (own !== undefined) parts.push(own);
    }
    if (parts.length === 0) return "unknown";
    const joined = parts.length === 1 ? parts[0]! : parts.map(wrap).join(" & ");
    const nullable = node.nullable === true || node["x-nullable"] === true;
    return nullable && joined !== "unknown" ? `${joined} | null` : joined;
  }

  /** The type a `$ref` stands for: a named type, the root's, or the pointed-at schema inlined. */
  #refType(ref: string, at: RenderContext): string {
    if (ref === "#" && this.#self !== undefined) return this.#self;
    const named = this.namedRef(ref);
    if (named !== undefined) {
      this.#types.reach(named.typeName, () => ({
        type: this.#render(named.schema, { indent: "", inlining: new Set(), depth: 0 }),
        doc: docOf(named.schema),
      }));
      return named.typeName;
    }
    // Any other pointer is inlined, once per path (a cycle becomes unknown).
    if (at.inlining.has(ref)) return "unknown";
    const target = this.resolvePointer(ref);
    if (target === undefined) {
      this.notes.danglingRefs.add(ref);
      return "unknown";
    }
    return this.#render(target, { ...at, inlining: new Set([...at.inlining, ref]) });
  }

  /** The type the node's own `type`/`properties`/`items` say, undefined when they say nothing. */
  #renderOwn(node: Record<string, unknown>, at: RenderContext): string | undefined {
    const types = Array.isArray(node.type)
      ? node.type.filter((t): t is string => typeof t === "string")
      : typeof node.type === "string"
      ? [node.type]
      : [];
    if (types.length === 0) {
      if (
        node.properties !== undefined || node.additionalProperties !== undefined ||
        node.patternProperties !== undefined
      ) types.push("object");
      else if (node.items !== undefined || node.prefixItems !== undefined) types.push("array");
      else return undefined;
    }
    return [...new Set(types.map((type) => this.#renderTyped(type, node, at)))].join(" | ");
  }

  #renderTyped(type: string, node: Record<string, unknown>, at: RenderContext): string {
    switch (type) {
      case "string":
      case "file": // Swagger 2.0 form uploads
        return "string";
      case "integer":
      case "number":
        return "number";
      case "boolean":
        return "boolean";
      case "null":
        return "null";
      case "array":
        return this.#renderArray(node, at);
      case "object":
        return this.#renderObject(node, at);
      default:
        return "unknown";
    }
  }

  /**
   * `T[]`, or a tuple for `prefixItems` (2020-12) or an `items` array (draft-07), with a rest
   * element when the items after them have a schema. Bounds stay in the JSDoc: `minItems: 1`
   * as a type would refuse a script's plain array.
   */
  #renderArray(node: Record<string, unknown>, at: RenderContext): string {
    const prefix = Array.isArray(node.prefixItems)
      ? node.prefixItems
      : Array.isArray(node.items)
      ? node.items
      : undefined;
    if (prefix !== undefined) {
      const elements = prefix.map((item) => this.#render(item, at));
      const rest = Array.isArray(node.prefixItems) ? node.items : node.additionalItems;
      if (asRecord(rest) !== undefined) elements.push(`...${arrayOf(this.#render(rest, at))}`);
      return `[${elements.join(", ")}]`;
    }
    return arrayOf(this.#render(node.items, at));
  }

  #renderObject(node: Record<string, unknown>, at: RenderContext): string {
    const properties = asRecord(node.properties) ?? {};
    const required = new Set(
      Array.isArray(node.required) ? node.required.filter((r) => typeof r === "string") : [],
    );
    const indent = `${at.indent}  `;
    const inner = { ...at, indent };
    const lines: string[] = [];
    const propertyTypes: string[] = [];
    let someOptional = false;
    for (const [key, value] of Object.entries(properties)) {
      const type = this.#render(value, inner);
      const optional = !required.has(key);
      propertyTypes.push(type);
      someOptional ||= optional;
      lines.push(
        `${jsDoc(docOf(value, key), indent)}${indent}${propertyName(key)}${
          optional ? "?" : ""
        }: ${type};`,
      );
    }
    // Keys beyond the properties: `additionalProperties`, `patternProperties`.
    const extra = node.additionalProperties;
    const indexSchemas = [
      ...(extra === undefined || extra === false ? [] : [extra]),
      ...Object.values(asRecord(node.patternProperties) ?? {}),
    ];
    if (indexSchemas.length > 0) {
      const indexTypes = indexSchemas.map((schema) => this.#render(schema, inner));
      // Declared properties must fit the index signature.
      const all = indexTypes.includes("unknown")
        ? ["unknown"]
        : [...new Set([...indexTypes, ...propertyTypes, ...(someOptional ? ["undefined"] : [])])];
      lines.push(`${indent}[key: string]: ${all.join(" | ")};`);
    } else if (lines.length === 0) {
      return extra === false ? "Record<string, never>" : "{ [key: string]: unknown }";
    }
    return `{\n${lines.join("\n")}\n${at.indent}}`;
  }
}

interface RenderContext {
  /** Indentation of the line the type starts on. */
  indent: string;
  /** Pointers being inlined on this path (a cycle among them is typed `unknown`). */
  inlining: ReadonlySet<string>;
  depth: number;
}

/**
 * `type` declared as `typeName`: an interface when it is one object type (as scripts and
 * `describe` read them best), a type alias otherwise; `doc` as its JSDoc.
 */
export function declaration(typeName: string, type: string, doc = ""): string {
  const head = jsDoc(doc, "");
  // One object type at the root: its only unindented lines are the first and the last.
  const object = type.startsWith("{\n") && type.indexOf("\n}") === type.length - 2;
  return object
    ? `${head}export interface ${typeName} ${type}`
    : `${head}export type ${typeName} = ${type};`;
}

/**
 * Description (or a title that says more than the property's name) of a schema with its
 * format, default, deprecation and array bounds, as JSDoc text; `key` is the property it
 * describes, if any.
 */
export function docOf(schema: unknown, key?: string): string {
  const node = asRecord(schema);
  if (node === undefined) return "";
  const lines: string[] = [];
  const description = typeof node.description === "string" ? node.description.trim() : "";
  const title = typeof node.title === "string" ? node.title.trim() : "";
  if (description !== "") lines.push(description);
  // pydantic titles every property after its name ("file_path" → "File Path"): no news.
  else if (title !== "" && (key === undefined || words(title) !== words(key))) lines.push(title);
  if (typeof node.format === "string") lines.push(`@format ${node.format}`);
  if (node.default !== undefined) lines.push(`@default ${shortJson(node.default)}`);
  if (node.deprecated === true) lines.push("@deprecated");
  const bounds = arrayBounds(node);
  if (bounds !== "") lines.push(bounds);
  return lines.join("\n");
}

/** `minItems`/`maxItems` in words: `At least 1 item.`, `At most 4 items.`, `1 to 100 items.` */
function arrayBounds(node: Record<string, unknown>): string {
  const min = typeof node.minItems === "number" && node.minItems > 0 ? node.minItems : undefined;
  const max = typeof node.maxItems === "number" ? node.maxItems : undefined;
  const items = (n: number) => `${n} item${n === 1 ? "" : "s"}.`;
  if (min !== undefined && max !== undefined) return `${min} to ${items(max)}`;
  if (min !== undefined) return `At least ${items(min)}`;
  if (max !== undefined) return `At most ${items(max)}`;
  return "";
}

/** A JSDoc block at `indent` (empty text → nothing); `*\/` in the text cannot end it. */
export function jsDoc(text: string, indent: string): string {
  if (text === "") return "";
  const lines = text.replaceAll("*/", "*\\/").split("\n");
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${
    lines.map((line) => `${indent} * ${line}`.trimEnd()).join("\n")
  }\n${indent} */\n`;
}

/** A property name as TypeScript accepts it: bare when an identifier, quoted otherwise. */
export function propertyName(key: string): string {
  return IDENTIFIER.test(key) ? key : JSON.stringify(key);
}

/** A JSON pointer segment unescaped (`~1` → `/`, `~0` → `~`, percent-decoded); undefined if malformed. */
function unescapePointer(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment).replaceAll("~1", "/").replaceAll("~0", "~");
  } catch {
    return undefined;
  }
}

function literal(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "number";
  if (typeof value === "boolean" || value === null) return String(value);
  return "unknown";
}

/** `T[]` for a plain name, `Array<T>` for anything longer. */
function arrayOf(item: string): string {
  return /^[A-Za-z0-9_$.]+$/.test(item) ? `${item}[]` : `Array<${item}>`;
}

/** Parenthesises a union or intersection so it can take part in another `&`. */
function wrap(type: string): string {
  return type.includes("|") || type.includes("&") ? `(${type})` : type;
}

/** Lower-case letters and digits only, to compare a title with a property name. */
function words(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]/g, "");
}

function shortJson(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
