/**
 * An MCP server's tool list → the namespace catalogue: descriptors, TypeScript declarations
 * (one uniquely named input/output type per tool) and naming warnings.
 * @module
 */

import { assignIdentifiers } from "../../protocol/names.ts";
import type { JsonSchema, NamespaceCatalogue, ToolDescriptor } from "../namespace.ts";
import { asRecord } from "../kind_support/as_record.ts";
import { type NamedSchemas, SchemaTypes, typeNameFor } from "../kind_support/schema_types.ts";

/** What a tool without an `outputSchema` resolves to in scripts. */
const NO_SCHEMA_OUTPUT_TYPE = "any";

/** One tool as `tools/list` describes it (the fields the gateway uses). */
export interface McpToolListing {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema | undefined;
  annotations?: Record<string, unknown> | undefined;
}

/** Inputs of {@linkcode buildCatalogue}. */
export interface BuildCatalogueOptions {
  tools: readonly McpToolListing[];
  prompts?: { name: string; description: string }[];
}

/**
 * Builds the catalogue of MCP namespace `namespace`. Type names derive from tool names
 * (`get-sum` → `GetSumInput`/`GetSumOutput`, a schema's `$defs` entry `node` →
 * `GetSumInputNode`), deduplicated with a numeric suffix in name order, so the same tool set
 * always yields the same declarations. A tool without an `outputSchema` returns `any`: its
 * unwrapped value may be text, parsed JSON or content blocks.
 */
export function buildCatalogue(
  namespace: string,
  options: BuildCatalogueOptions,
): NamespaceCatalogue {
  const tools = [...options.tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const warnings = assignIdentifiers(tools.map((tool) => tool.name), { what: `${namespace} tool` })
    .warnings;
  const stems = new Set<string>();
  const uniqueStem = (stem: string): string => {
    let candidate = stem;
    for (let n = 2; stems.has(candidate); n++) candidate = `${stem}${n}`;
    stems.add(candidate);
    return candidate;
  };
  const types = new SchemaTypes();
  const declarations: string[] = [];
  /** Declares `schema` as `typeName` (its `$defs` as `<typeName><Def>`); warns of loose refs. */
  const declare = (schema: JsonSchema, typeName: string, what: string, tool: string) => {
    const document = types.document(schema, definitionsOf(schema, typeName), { self: typeName });
    declarations.push(document.declaration(typeName, schema));
    const named = types.declarations();
    if (named !== "") declarations.push(named);
    for (const ref of document.notes.danglingRefs) {
      warnings.push(
        `The ${what} type of tool "${namespace}.${tool}" is loosened: "$ref": "${ref}" cannot be followed (typed unknown)`,
      );
    }
    return typeName;
  };

  const descriptors: ToolDescriptor[] = [];
  for (const tool of tools) {
    const stem = uniqueStem(typeNameFor(tool.name));
    const inputType = takesNoInput(tool.inputSchema)
      ? null
      : declare(tool.inputSchema, types.uniqueTypeName(`${stem}Input`), "input", tool.name);
    // Without an output schema the value is text, parsed JSON or content blocks: typed `any`,
    // like `JSON.parse`, so a script uses it without casts.
    const outputType = tool.outputSchema === undefined
      ? NO_SCHEMA_OUTPUT_TYPE
      : declare(tool.outputSchema, types.uniqueTypeName(`${stem}Output`), "output", tool.name);
    const required = requiredNames(tool.inputSchema);
    const descriptor: ToolDescriptor = {
      originalName: tool.name,
      description: tool.description ?? tool.title ?? "",
      inputType,
      inputOptional: inputType === null || required.length === 0,
      outputType,
      params: paramsOf(tool.inputSchema, required),
      inputSchema: tool.inputSchema,
    };
    if (tool.outputSchema !== undefined) descriptor.outputSchema = tool.outputSchema;
    if (tool.annotations !== undefined) descriptor.annotations = { ...tool.annotations };
    descriptors.push(descriptor);
  }
  const catalogue: NamespaceCatalogue = {
    tools: descriptors,
    declarations: declarations.join("\n\n"),
    warnings,
  };
  if (options.prompts !== undefined) catalogue.prompts = options.prompts;
  return catalogue;
}

/** A tool schema's `$defs` and `definitions`, named after the type that holds them. */
function definitionsOf(schema: JsonSchema, typeName: string): NamedSchemas[] {
  return ["$defs", "definitions"].map((keyword) => ({
    prefix: `#/${keyword}/`,
    schemas: asRecord(schema[keyword]) ?? {},
    stem: (key: string) => `${typeName}${typeNameFor(key)}`,
  }));
}

/** An object schema with no way to carry a value: the tool takes no argument. */
function takesNoInput(schema: JsonSchema): boolean {
  const properties = schema.properties;
  const noProperties = properties === undefined ||
    (typeof properties === "object" && properties !== null &&
      Object.keys(properties).length === 0);
  return noProperties &&
    (schema.additionalProperties === undefined || schema.additionalProperties === false) &&
    ["patternProperties", "allOf", "anyOf", "oneOf", "$ref"].every((k) => schema[k] === undefined);
}

function requiredNames(schema: JsonSchema): string[] {
  return Array.isArray(schema.required)
    ? schema.required.filter((name): name is string => typeof name === "string")
    : [];
}

function paramsOf(schema: JsonSchema, required: string[]): ToolDescriptor["params"] {
  const properties = schema.properties;
  if (typeof properties !== "object" || properties === null) return [];
  return Object.entries(properties as Record<string, unknown>).map(([name, property]) => {
    const description = typeof property === "object" && property !== null &&
        "description" in property && typeof property.description === "string"
      ? property.description.split("\n")[0] ?? ""
      : "";
    return { name, description, required: required.includes(name) };
  });
}
