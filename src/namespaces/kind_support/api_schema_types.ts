/**
 * The schemas of one API document (OpenAPI 3.x `components.schemas`, Swagger 2.0
 * `definitions`) as TypeScript types and as plain JSON Schema for the argument validator.
 * Named schemas become one named type each, so a document with a thousand operations renders
 * each shared schema once.
 * @module
 */

import type { JsonSchema } from "../namespace.ts";
import { typeNameFor } from "./schema_to_typescript.ts";

/** Aggregated loosenings, reported in `gateway tools NS`. */
export interface SchemaNotes {
  /** `oneOf`s without a discriminator, validated as `anyOf` (names of the places). */
  oneOfWithoutDiscriminator: Set<string>;
  /** `$ref`s that point nowhere; typed `unknown`. */
  danglingRefs: Set<string>;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * Renders and converts the schemas of one document. Type names come from schema names
 * (`simple-user` → `SimpleUser`), made unique in document order; only the named types that
 * operations reach are declared.
 */
export class ApiSchemaTypes {
  readonly #document: Record<string, unknown>;
  /** Ref prefix of named schemas: `#/components/schemas/` or `#/definitions/`. */
  readonly #prefix: string;
  readonly #named: Record<string, unknown>;
  readonly #typeNames = new Map<string, string>();
  readonly #usedTypeNames = new Set<string>();
  readonly #declared = new Set<string>();
  readonly #pending: string[] = [];
  /** Notes gathered while rendering and converting. */
  readonly notes: SchemaNotes = { oneOfWithoutDiscriminator: new Set(), danglingRefs: new Set() };

  constructor(document: Record<string, unknown>, reserved: Iterable<string> = []) {
    this.#document = document;
    const swagger = document.swagger === "2.0";
    this.#prefix = swagger ? "#/definitions/" : "#/components/schemas/";
    const holder = swagger ? document.definitions : (asRecord(document.components)?.schemas);
    this.#named = asRecord(holder) ?? {};
    for (const name of reserved) this.#usedTypeNames.add(name);
    for (const name of Object.keys(this.#named)) {
      this.#typeNames.set(name, this.uniqueTypeName(typeNameFor(name)));
    }
  }

  /** Reserves and returns a type name not used yet (`Stem`, `Stem2`, …). */
  uniqueTypeName(stem: string): string {
    let candidate = stem;
    for (let n = 2; this.#usedTypeNames.has(candidate); n++) candidate = `${stem}${n}`;
    this.#usedTypeNames.add(candidate);
    return candidate;
  }

  /** Follows a document-internal `$ref` (any JSON pointer); undefined when it points nowhere. */
  resolvePointer(ref: string): unknown {
    if (!ref.startsWith("#")) return undefined;
    let node: unknown = this.#document;
    for (const raw of ref.slice(1).split("/").slice(1)) {
      const key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
      const record = asRecord(node);
      if (record !== undefined && key in record) node = record[key];
      else if (Array.isArray(node) && /^\d+$/.test(key)) node = node[Number(key)];
      else return undefined;
    }
    return node;
  }

  /** Follows `$ref` chains of a parameter/body/response object (not a schema) to its value. */
  deref(value: unknown): Record<string, unknown> | undefined {
    let node = value;
    for (let hops = 0; hops < 20; hops++) {
      const record = asRecord(node);
      if (record === undefined) return undefined;
      if (typeof record.$ref !== "string") return record;
      node = this.resolvePointer(record.$ref);
    }
    return undefined;
  }

  /** The TypeScript type expression of `schema`; named schemas render as their type name. */
  typeOf(schema: unknown, indent = ""): string {
    return this.#render(schema, indent, new Set());
  }

  /** `export type …` declarations of every named schema reached so far (and what they reach). */
  declarations(): string {
    const out: string[] = [];
    while (this.#pending.length > 0) {
      const name = this.#pending.shift()!;
      const schema = this.#named[name];
      const typeName = this.#typeNames.get(name)!;
      const doc = jsDoc(docOf(schema), "");
      out.push(`${doc}export type ${typeName} = ${this.#render(schema, "", new Set([name]))};`);
    }
    return out.join("\n");
  }

  /**
   * `schema` as self-contained JSON Schema (2020-12) for ajv: OpenAPI 3.0 `nullable` and
   * boolean `exclusiveMinimum`, Swagger `file`, and named refs (into `$defs`) translated;
   * `oneOf` without a discriminator loosened to `anyOf` (noted under `where`).
   */
  toJsonSchema(schema: unknown, where: string): JsonSchema {
    const defs: Record<string, unknown> = {};
    const queue: string[] = [];
    const seen = new Set<string>();
    const convert = (node: unknown): unknown =>
      this.#convert(node, where, (name) => {
        if (!seen.has(name)) {
          seen.add(name);
          queue.push(name);
        }
      });
    const root = convert(schema);
    while (queue.length > 0) {
      const name = queue.shift()!;
      defs[name] = convert(this.#named[name]);
    }
    const out: JsonSchema = typeof root === "object" && root !== null
      ? { ...(root as JsonSchema) }
      : { anyOf: [root as JsonSchema] };
    if (Object.keys(defs).length > 0) out.$defs = defs;
    return out;
  }

  #namedFromRef(ref: string): string | undefined {
    if (!ref.startsWith(this.#prefix)) return undefined;
    const name = decodeURIComponent(ref.slice(this.#prefix.length)).replaceAll("~1", "/")
      .replaceAll("~0", "~");
    return name in this.#named ? name : undefined;
  }

  #render(schema: unknown, indent: string, inlining: Set<string>): string {
    if (schema === true || schema === undefined) return "unknown";
    if (schema === false) return "never";
    const node = asRecord(schema);
    if (node === undefined) return "unknown";
    if (typeof node.$ref === "string") {
      const named = this.#namedFromRef(node.$ref);
      if (named !== undefined) {
        if (!this.#declared.has(named)) {
          this.#declared.add(named);
          this.#pending.push(named);
        }
        return this.#typeNames.get(named)!;
      }
      // Any other internal pointer is inlined, once per path (a cycle becomes unknown).
      if (inlining.has(node.$ref)) return "unknown";
      const target = this.resolvePointer(node.$ref);
      if (target === undefined) {
        this.notes.danglingRefs.add(node.$ref);
        return "unknown";
      }
      return this.#render(target, indent, new Set([...inlining, node.$ref]));
    }
    const nullable = node.nullable === true || node["x-nullable"] === true;
    const withNull = (type: string) => nullable && type !== "unknown" ? `${type} | null` : type;
    if ("const" in node) return withNull(literal(node.const));
    if (Array.isArray(node.enum) && node.enum.length > 0) {
      return withNull([...new Set(node.enum.map(literal))].join(" | "));
    }
    const parts: string[] = [];
    if (Array.isArray(node.allOf) && node.allOf.length > 0) {
      const all = node.allOf.map((s) => this.#render(s, indent, inlining));
      parts.push(all.length === 1 ? all[0]! : all.map(wrap).join(" & "));
    }
    for (const key of ["anyOf", "oneOf"] as const) {
      const list = node[key];
      if (Array.isArray(list) && list.length > 0) {
        parts.push([...new Set(list.map((s) => this.#render(s, indent, inlining)))].join(" | "));
      }
    }
    const own = this.#renderOwn(node, indent, inlining);
    if (own !== undefined) parts.push(own);
    if (parts.length === 0) return "unknown";
    const joined = parts.length === 1 ? parts[0]! : parts.map(wrap).join(" & ");
    return withNull(joined);
  }

  /** The type the node's own `type`/`properties`/`items` say, undefined when they say nothing. */
  #renderOwn(node: Record<string, unknown>, indent: string, inlining: Set<string>) {
    const types = Array.isArray(node.type)
      ? node.type.filter((t): t is string => typeof t === "string")
      : typeof node.type === "string"
      ? [node.type]
      : [];
    const hasObjectShape = node.properties !== undefined ||
      node.additionalProperties !== undefined;
    if (types.length === 0 && hasObjectShape) types.push("object");
    if (types.length === 0 && node.items !== undefined) types.push("array");
    if (types.length === 0) return undefined;
    return [...new Set(types.map((type) => this.#renderTyped(type, node, indent, inlining)))]
      .join(" | ");
  }

  #renderTyped(
    type: string,
    node: Record<string, unknown>,
    indent: string,
    inlining: Set<string>,
  ): string {
    switch (type) {
      case "string":
      case "file":
        return "string";
      case "integer":
      case "number":
        return "number";
      case "boolean":
        return "boolean";
      case "null":
        return "null";
      case "array": {
        if (Array.isArray(node.prefixItems)) {
          return `[${node.prefixItems.map((s) => this.#render(s, indent, inlining)).join(", ")}]`;
        }
        const item = this.#render(node.items, indent, inlining);
        return /^[A-Za-z0-9_$.]+$/.test(item) ? `${item}[]` : `Array<${item}>`;
      }
      case "object":
        return this.#renderObject(node, indent, inlining);
      default:
        return "unknown";
    }
  }

  #renderObject(node: Record<string, unknown>, indent: string, inlining: Set<string>): string {
    const properties = asRecord(node.properties) ?? {};
    const required = new Set(
      Array.isArray(node.required) ? node.required.filter((r) => typeof r === "string") : [],
    );
    const inner = `${indent}  `;
    const lines: string[] = [];
    for (const [key, value] of Object.entries(properties)) {
      const doc = jsDoc(docOf(value), inner);
      const name = IDENTIFIER.test(key) ? key : JSON.stringify(key);
      const optional = required.has(key) ? "" : "?";
      lines.push(`${doc}${inner}${name}${optional}: ${this.#render(value, inner, inlining)};`);
    }
    const extra = node.additionalProperties;
    if (extra === true || (asRecord(extra) !== undefined && Object.keys(extra!).length === 0)) {
      lines.push(`${inner}[key: string]: unknown;`);
    } else if (asRecord(extra) !== undefined) {
      const valueType = this.#render(extra, inner, inlining);
      // Declared properties must fit the index signature; unknown always does.
      lines.push(
        `${inner}[key: string]: ${lines.length > 0 ? "unknown" : valueType};`,
      );
    } else if (lines.length === 0) {
      return extra === false ? "Record<string, never>" : "{ [key: string]: unknown }";
    }
    return `{\n${lines.join("\n")}\n${indent}}`;
  }

  #convert(node: unknown, where: string, reach: (name: string) => void): unknown {
    if (typeof node === "boolean") return node;
    const record = asRecord(node);
    if (record === undefined) return Array.isArray(node) ? node : {};
    if (typeof record.$ref === "string") {
      const named = this.#namedFromRef(record.$ref);
      if (named !== undefined) {
        reach(named);
        return { $ref: `#/$defs/${named.replaceAll("~", "~0").replaceAll("/", "~1")}` };
      }
      const target = this.resolvePointer(record.$ref);
      if (target === undefined) {
        this.notes.danglingRefs.add(record.$ref);
        return {};
      }
      return this.#convert(target, where, reach);
    }
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(record)) {
      if (key.startsWith("x-") || key === "discriminator" || key === "xml" || key === "example") {
        continue;
      }
      if (key === "properties" || key === "patternProperties") {
        const props = asRecord(value) ?? {};
        out[key] = Object.fromEntries(
          Object.entries(props).map(([name, sub]) => [name, this.#convert(sub, where, reach)]),
        );
      } else if (key === "allOf" || key === "anyOf" || key === "oneOf" || key === "prefixItems") {
        out[key] = Array.isArray(value) ? value.map((s) => this.#convert(s, where, reach)) : value;
      } else if (
        key === "items" || key === "additionalProperties" || key === "not" ||
        key === "additionalItems"
      ) {
        out[key] = Array.isArray(value)
          ? value.map((s) => this.#convert(s, where, reach))
          : this.#convert(value, where, reach);
      } else if (key === "type" && value === "file") {
        out.type = "string";
      } else if (key !== "nullable" && key !== "exclusiveMinimum" && key !== "exclusiveMaximum") {
        out[key] = value;
      }
    }
    for (
      const [exclusive, bound] of [["exclusiveMinimum", "minimum"], [
        "exclusiveMaximum",
        "maximum",
      ]] as const
    ) {
      const value = record[exclusive];
      if (value === true && typeof record[bound] === "number") {
        out[exclusive] = record[bound];
        delete out[bound];
      } else if (typeof value === "number") out[exclusive] = value;
    }
    if (Array.isArray(record.oneOf) && record.discriminator === undefined) {
      this.notes.oneOfWithoutDiscriminator.add(where);
      out.anyOf = out.oneOf;
      delete out.oneOf;
    }
    if (record.nullable === true || record["x-nullable"] === true) {
      if (typeof out.type === "string") out.type = [out.type, "null"];
      if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
      if (out.type === undefined) return { anyOf: [out, { type: "null" }] };
    }
    return out;
  }
}

/** Description (and format/default hints) of a schema, as JSDoc text. */
export function docOf(schema: unknown): string {
  const node = asRecord(schema);
  if (node === undefined) return "";
  const lines: string[] = [];
  const text = typeof node.description === "string"
    ? node.description
    : typeof node.title === "string"
    ? node.title
    : "";
  if (text.trim() !== "") lines.push(text.trim());
  if (typeof node.format === "string") lines.push(`@format ${node.format}`);
  if (node.default !== undefined) lines.push(`@default ${shortJson(node.default)}`);
  if (node.deprecated === true) lines.push("@deprecated");
  return lines.join("\n");
}

/** A JSDoc block at `indent` (empty text → nothing). */
export function jsDoc(text: string, indent: string): string {
  if (text === "") return "";
  const lines = text.replaceAll("*/", "*\\/").split("\n");
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${
    lines.map((line) => `${indent} * ${line}`.trimEnd()).join("\n")
  }\n${indent} */\n`;
}

function literal(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean" || value === null) {
    return String(value);
  }
  return "unknown";
}

/** Parenthesises a union or intersection so it can take part in another `&`. */
function wrap(type: string): string {
  return type.includes("|") || type.includes("&") ? `(${type})` : type;
}

function shortJson(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** The value as a plain object, or undefined. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Record<string, unknown>
    : undefined;
}
