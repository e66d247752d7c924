/**
 * The schemas of one API document (OpenAPI 3.x `components.schemas`, Swagger 2.0
 * `definitions`) as TypeScript types, through the one renderer every kind uses
 * ({@linkcode SchemaTypes}), and as plain JSON Schema for the argument validator. Named schemas
 * become one named type each, so a document with a thousand operations renders each shared
 * schema once.
 * @module
 */

import type { JsonSchema } from "../namespace.ts";
import { asRecord } from "./as_record.ts";
import { type SchemaDocument, SchemaTypes, typeNameFor } from "./schema_types.ts";

/** Aggregated loosenings, reported in `gateway tools NS`. */
export interface SchemaNotes {
  /** `oneOf`s without a discriminator, validated as `anyOf` (names of the places). */
  oneOfWithoutDiscriminator: Set<string>;
  /** `$ref`s that point nowhere; typed `unknown`. */
  danglingRefs: Set<string>;
}

/**
 * Renders and converts the schemas of one document. Type names come from schema names
 * (`simple-user` → `SimpleUser`), made unique in document order; only the named types that
 * operations reach are declared.
 */
export class ApiSchemaTypes {
  /** The namespace's type names and the named types reached (tool types are declared here too). */
  readonly types: SchemaTypes;
  readonly #document: SchemaDocument;
  /** Notes gathered while rendering and converting. */
  readonly notes: SchemaNotes;

  constructor(document: Record<string, unknown>, reserved: Iterable<string> = []) {
    const swagger = document.swagger === "2.0";
    const holder = swagger ? document.definitions : (asRecord(document.components)?.schemas);
    this.types = new SchemaTypes(reserved);
    this.#document = this.types.document(document, [{
      prefix: swagger ? "#/definitions/" : "#/components/schemas/",
      schemas: asRecord(holder) ?? {},
      stem: typeNameFor,
    }]);
    this.notes = {
      oneOfWithoutDiscriminator: new Set(),
      danglingRefs: this.#document.notes.danglingRefs,
    };
  }

  /** Reserves and returns a type name not used yet (`Stem`, `Stem2`, …). */
  uniqueTypeName(stem: string): string {
    return this.types.uniqueTypeName(stem);
  }

  /** Follows a document-internal `$ref` (any JSON pointer); undefined when it points nowhere. */
  resolvePointer(ref: string): unknown {
    return this.#document.resolvePointer(ref);
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
    return this.#document.typeOf(schema, indent);
  }

  /** `schema` declared as `typeName` (an interface for an object type, an alias otherwise). */
  declaration(typeName: string, schema: unknown): string {
    return this.#document.declaration(typeName, schema);
  }

  /** The declarations of every named schema reached so far (and what they reach). */
  declarations(): string {
    return this.types.declarations();
  }

  /**
   * `schema` as self-contained JSON Schema (2020-12) for ajv: OpenAPI 3.0 `nullable` and
   * boolean `exclusiveMinimum`, Swagger `file`, and named refs (into `$defs`) translated;
   * `oneOf` without a discriminator loosened to `anyOf` (noted under `where`).
   */
  toJsonSchema(schema: unknown, where: string): JsonSchema {
    const defs: Record<string, unknown> = {};
    const queue: Array<{ key: string; schema: unknown }> = [];
    const seen = new Set<string>();
    const convert = (node: unknown): unknown =>
      this.#convert(node, where, (named) => {
        if (!seen.has(named.key)) {
          seen.add(named.key);
          queue.push(named);
        }
      });
    const root = convert(schema);
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      defs[next.key] = convert(next.schema);
    }
    const out: JsonSchema = typeof root === "object" && root !== null
      ? { ...(root as JsonSchema) }
      : { anyOf: [root as JsonSchema] };
    if (Object.keys(defs).length > 0) out.$defs = defs;
    return out;
  }

  #convert(
    node: unknown,
    where: string,
    reach: (named: { key: string; schema: unknown }) => void,
  ): unknown {
    if (typeof node === "boolean") return node;
    const record = asRecord(node);
    if (record === undefined) return Array.isArray(node) ? node : {};
    if (typeof record.$ref === "string") {
      const named = this.#document.namedRef(record.$ref);
      if (named !== undefined) {
        reach(named);
        return { $ref: `#/$defs/${named.key.replaceAll("~", "~0").replaceAll("/", "~1")}` };
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
