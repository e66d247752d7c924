/**
 * An API document → the namespace catalogue: one tool per operation with a named input type
 * (parameters and body in one object) and output type (the 2xx answer), the shared schemas
 * declared once, and notes on everything left out or loosened.
 * @module
 */

import {
  DEFAULT_ACTION_ANNOTATION,
  type NamespaceCatalogue,
  type ToolDescriptor,
  type ToolSecurity,
} from "../namespace.ts";
import { type ConfiguredCredentials, securityStatus } from "./api_security.ts";
import { declaration, typeNameFor } from "../kind_support/schema_types.ts";
import { type ApiOperation, extractOperations } from "./api_operations.ts";
import { ApiSchemaTypes } from "../kind_support/api_schema_types.ts";
import { asRecord } from "../kind_support/as_record.ts";

/** A built API catalogue plus what the call path needs. */
export interface ApiCatalogue {
  catalogue: NamespaceCatalogue;
  operations: Map<string, ApiOperation>;
  schemas: ApiSchemaTypes;
  /** Operations in the document, before filtering and leaving out. */
  total: number;
  /** Removed by `include`/`exclude`. */
  filtered: number;
  /** By operation: what a call needs and whether the configuration provides it. */
  security: Map<string, ToolSecurity>;
}

const READ_METHODS = new Set(["get", "head", "options"]);

/**
 * Builds an API namespace's catalogue from a parsed document. `writes` is the policy action
 * for non-GET operations when no policy rule matches.
 */
export function buildApiCatalogue(
  document: Record<string, unknown>,
  options: {
    include: readonly string[];
    exclude: readonly string[];
    writes: "ask" | "allow" | "deny";
    /** The namespace and what its entry configures, to judge each operation's security. */
    credentials?: ConfiguredCredentials & { namespace: string };
  },
): ApiCatalogue {
  const schemas = new ApiSchemaTypes(document);
  const extracted = extractOperations(document, schemas, options);
  const tools: ToolDescriptor[] = [];
  const declarations: string[] = [];
  const operations = new Map<string, ApiOperation>();
  const security = new Map<string, ToolSecurity>();
  const credentials = options.credentials;
  for (const operation of extracted.operations) {
    operations.set(operation.name, operation);
    const needs = credentials === undefined
      ? undefined
      : securityStatus(operation.security, credentials, credentials.namespace);
    if (needs !== undefined) security.set(operation.name, needs);
    const stem = typeNameFor(operation.name);
    const inputName = schemas.uniqueTypeName(`${stem}Input`);
    const outputName = schemas.uniqueTypeName(`${stem}Output`);
    // Parameters and body as one object schema, each member documented with where it goes.
    const properties: Record<string, unknown> = {};
    const params: ToolDescriptor["params"] = [];
    for (const parameter of operation.parameters) {
      properties[parameter.key] = documented(parameter.schema, [
        parameter.description,
        `(${parameter.in} parameter "${parameter.name}")`,
      ]);
      params.push({
        name: parameter.key,
        description: firstLine(parameter.description),
        required: parameter.required,
      });
    }
    const body = operation.body;
    if (body !== undefined) {
      properties[body.key] = documented(body.schema, [
        body.description,
        `(request body, sent as ${body.contentType})`,
      ]);
      params.push({
        name: body.key,
        description: firstLine(body.description),
        required: body.required,
      });
    }
    const required = params.filter((p) => p.required);
    let inputType: string | null = null;
    if (params.length > 0) {
      const input = { type: "object", properties, required: required.map((p) => p.name) };
      declarations.push(schemas.declaration(inputName, input));
      inputType = inputName;
    }
    const output = operation.response === null ? "null" : schemas.typeOf(operation.response);
    declarations.push(declaration(outputName, output));
    const readOnly = READ_METHODS.has(operation.method);
    const annotations: Record<string, unknown> = {
      readOnlyHint: readOnly,
      destructiveHint: operation.method === "delete",
      idempotentHint: readOnly || operation.method === "put" || operation.method === "delete",
    };
    if (!readOnly && options.writes !== "allow") {
      annotations[DEFAULT_ACTION_ANNOTATION] = options.writes;
    }
    tools.push({
      originalName: operation.name,
      description: describe(operation),
      inputType,
      inputOptional: inputType === null || required.length === 0,
      outputType: outputName,
      params,
      annotations,
      ...(needs !== undefined ? { security: needs } : {}),
    });
  }
  const notes = [...extracted.notes, ...loosenedSchemas(document)];
  if (extracted.filtered > 0) {
    notes.push(`left out ${extracted.filtered} operations by "include"/"exclude"`);
  }
  const named = schemas.declarations();
  for (const ref of schemas.notes.danglingRefs) {
    notes.push(`loosened: "$ref": "${ref}" points nowhere in the document; typed unknown`);
  }
  return {
    catalogue: {
      tools,
      declarations: [named, ...declarations].filter((d) => d !== "").join("\n"),
      warnings: notes,
    },
    operations,
    schemas,
    total: extracted.total,
    filtered: extracted.filtered,
    security,
  };
}

/** Summary, description and `METHOD /path`, as the tool's JSDoc. */
function describe(operation: ApiOperation): string {
  const parts = [operation.summary.trim(), operation.description.trim()].filter((p) => p !== "");
  if (parts.length === 2 && parts[1]!.startsWith(parts[0]!)) parts.shift();
  parts.push(`\`${operation.method.toUpperCase()} ${operation.path}\``);
  if (operation.deprecated) parts.push("@deprecated");
  return parts.join("\n\n");
}

/** One grouped note for named schemas whose `oneOf` has no discriminator. */
function loosenedSchemas(document: Record<string, unknown>): string[] {
  const holder = document.swagger === "2.0"
    ? document.definitions
    : asRecord(document.components)?.schemas;
  const names: string[] = [];
  for (const [name, schema] of Object.entries(asRecord(holder) ?? {})) {
    if (hasLooseOneOf(schema, 0)) names.push(name);
  }
  if (names.length === 0) return [];
  const shown = names.slice(0, 5).map((n) => `"${n}"`).join(", ");
  return [
    `loosened ${names.length} schema${names.length === 1 ? "" : "s"} (${shown}${
      names.length > 5 ? ", …" : ""
    }): "oneOf" without a discriminator is checked as "anyOf" (a value matching several branches is accepted)`,
  ];
}

function hasLooseOneOf(node: unknown, depth: number): boolean {
  if (depth > 20) return false;
  const record = asRecord(node);
  if (record === undefined) {
    return Array.isArray(node) && node.some((item) => hasLooseOneOf(item, depth + 1));
  }
  if (Array.isArray(record.oneOf) && record.discriminator === undefined) return true;
  for (const [key, value] of Object.entries(record)) {
    if (key === "$ref" || key === "example" || key === "examples") continue;
    if (typeof value === "object" && hasLooseOneOf(value, depth + 1)) return true;
  }
  return false;
}

/**
 * `schema` with `lines` (where the value goes) before its own description, so the member's
 * JSDoc says both; a `$ref` keeps pointing at its named type.
 */
function documented(schema: unknown, lines: string[]): Record<string, unknown> {
  const node = asRecord(schema) ?? {};
  const own = typeof node.description === "string"
    ? node.description
    : typeof node.title === "string"
    ? node.title
    : "";
  const description = [...lines, own].map((line) => line.trim()).filter((line) => line !== "")
    .join("\n");
  return { ...node, description };
}

function firstLine(text: string): string {
  return text.trim().split("\n")[0] ?? "";
}
