/**
 * An MCP server's tool list → the namespace catalogue: descriptors, TypeScript declarations
 * (one uniquely named input/output type per tool) and naming warnings.
 * @module
 */

import { assignIdentifiers } from "../../protocol/names.ts";
import type { JsonSchema, NamespaceCatalogue, ToolDescriptor } from "../namespace.ts";
import {
  type RenderedSchema,
  schemaToTypeScript,
  typeNameFor,
} from "../kind_support/schema_to_typescript.ts";

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
  /** Rendered schemas kept between refreshes (key: type name + schema), so an unchanged tool costs nothing. */
  cache?: Map<string, RenderedSchema>;
}

/** Type used when an input schema cannot be rendered: any object. */
const FALLBACK_INPUT_TYPE = "{ [key: string]: unknown }";

/**
 * Builds the catalogue of MCP namespace `namespace`. Type names derive from tool names
 * (`get-sum` → `GetSumInput`/`GetSumOutput`), deduplicated with a numeric suffix in name order,
 * so the same tool set always yields the same declarations. A tool without an `outputSchema`
 * returns `unknown`: its unwrapped value may be text, parsed JSON or content blocks (SPEC §6).
 */
export async function buildCatalogue(
  namespace: string,
  options: BuildCatalogueOptions,
): Promise<NamespaceCatalogue> {
  const tools = [...options.tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const warnings = assignIdentifiers(tools.map((tool) => tool.name), { what: `${namespace} tool` })
    .warnings;
  const usedTypeNames = new Set<string>();
  const uniqueTypeName = (stem: string): string => {
    let candidate = stem;
    for (let n = 2; usedTypeNames.has(candidate); n++) candidate = `${stem}${n}`;
    usedTypeNames.add(candidate);
    return candidate;
  };
  const render = async (schema: JsonSchema, typeName: string, what: string, tool: string) => {
    const key = `${typeName}\u0000${JSON.stringify(schema)}`;
    const cached = options.cache?.get(key);
    if (cached !== undefined) return cached;
    try {
      const rendered = await schemaToTypeScript(schema, { typeName });
      options.cache?.set(key, rendered);
      return rendered;
    } catch (error) {
      warnings.push(
        `Cannot render the ${what} type of tool "${namespace}.${tool}": ${
          error instanceof Error ? error.message.split("\n")[0] : String(error)
        }`,
      );
      return undefined;
    }
  };

  const descriptors: ToolDescriptor[] = [];
  const declarations: string[] = [];
  for (const tool of tools) {
    const stem = uniqueTypeName(typeNameFor(tool.name));
    let inputType: string | null = null;
    if (!takesNoInput(tool.inputSchema)) {
      const rendered = await render(tool.inputSchema, `${stem}Input`, "input", tool.name);
      if (rendered !== undefined) declarations.push(rendered.declarations);
      inputType = rendered?.typeName ?? FALLBACK_INPUT_TYPE;
    }
    // Without an output schema the value is text, parsed JSON or content blocks (SPEC §6):
    // typed `any`, like `JSON.parse`, so a script uses it without casts.
    let outputType = NO_SCHEMA_OUTPUT_TYPE;
    if (tool.outputSchema !== undefined) {
      const rendered = await render(tool.outputSchema, `${stem}Output`, "output", tool.name);
      if (rendered !== undefined) declarations.push(rendered.declarations);
      outputType = rendered?.typeName ?? "unknown";
    }
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
