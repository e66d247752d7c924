/**
 * Reads an MCP server's tool and prompt lists into a catalogue plus the per-tool argument checks
 * calls use; shared by the first connect and every `list_changed` refresh.
 * @module
 */

import type { NamespaceCatalogue } from "../namespace.ts";
import { buildCatalogue, type McpToolListing } from "./build_catalogue.ts";
import type { ArgumentCheck, InputValidator } from "../kind_support/input_validator.ts";
import type { Client } from "./mcp_sdk.ts";
import { messageOf } from "../../protocol/message_of.ts";

/** One upstream tool as calls need it: its listing and the compiled argument check. */
export interface McpToolEntry {
  listing: McpToolListing;
  /** Undefined when the schema could not be compiled: arguments go through unchecked. */
  check: ArgumentCheck | undefined;
  /**
   * For a tool with an `outputSchema`: the check of its structured content, compiled at the
   * first call (not at load: most tools are never called). Gives undefined when the schema
   * cannot be compiled here; the SDK's client then calls and validates it.
   */
  outputCheck?: () => ArgumentCheck | undefined;
}

/** What one load produced: the catalogue scripts see and the entries calls use. */
export interface LoadedMcpTools {
  catalogue: NamespaceCatalogue;
  tools: Map<string, McpToolEntry>;
}

/** What {@linkcode loadMcpTools} reuses between loads of one namespace. */
export interface LoadMcpToolsOptions {
  /** Compiles input schemas; one per namespace so its cache survives refreshes. */
  validator: InputValidator;
  /** Aborts the listing (start timeout, stop). */
  signal?: AbortSignal;
}

/**
 * Lists tools (and prompts, when the server has them) of namespace `name` through `client`.
 * Tools that require task-based execution are left out, and schemas that cannot be compiled
 * leave their tool unchecked; both become catalogue warnings.
 */
export async function loadMcpTools(
  client: Client,
  name: string,
  options: LoadMcpToolsOptions,
): Promise<LoadedMcpTools> {
  const { signal } = options;
  // Every page, read afresh: a refresh follows a change the server announced, and a listing it
  // allowed to be cached (`ttlMs`) may predate the change.
  const { tools: listings } = await client.listTools(undefined, {
    cacheMode: "refresh",
    ...(signal === undefined ? {} : { signal }),
  });
  const warnings: string[] = [];
  let prompts: { name: string; description: string }[] | undefined;
  if (client.getServerCapabilities()?.prompts !== undefined) {
    try {
      const { prompts: listed } = await client.listPrompts(undefined, { cacheMode: "refresh" });
      prompts = listed.map((p) => ({ name: p.name, description: p.description ?? "" }));
    } catch (error) {
      warnings.push(`Cannot list prompts of "${name}": ${messageOf(error)}`);
    }
  }
  const tools = new Map<string, McpToolEntry>();
  const listingsForCatalogue: McpToolListing[] = [];
  // A 2025 tool that requires a task needs the 2025 task wire, which the gateway does not
  // speak; a 2026-07-28 server makes tasks itself when it likes (the Tasks extension).
  const legacy = client.getProtocolEra() !== "modern";
  for (const tool of listings) {
    if (legacy && tool.execution?.taskSupport === "required") {
      warnings.push(`Tool "${name}.${tool.name}" is left out: it requires task-based execution`);
      continue;
    }
    const listing: McpToolListing = {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema,
      annotations: tool.annotations,
    };
    let check: ArgumentCheck | undefined;
    try {
      check = options.validator.compile(tool.inputSchema);
    } catch (error) {
      warnings.push(
        `Arguments of tool "${name}.${tool.name}" are not validated: ${messageOf(error)}`,
      );
    }
    const outputSchema = tool.outputSchema;
    let outputCheck: (() => ArgumentCheck | undefined) | undefined;
    if (outputSchema !== undefined) {
      let compiled: { check: ArgumentCheck | undefined } | undefined;
      outputCheck = () => {
        if (compiled === undefined) {
          try {
            compiled = { check: options.validator.compile(outputSchema) };
          } catch {
            compiled = { check: undefined };
          }
        }
        return compiled.check;
      };
    }
    tools.set(tool.name, { listing, check, ...(outputCheck ? { outputCheck } : {}) });
    listingsForCatalogue.push(listing);
  }
  const catalogue = buildCatalogue(name, {
    tools: listingsForCatalogue,
    ...(prompts === undefined ? {} : { prompts }),
  });
  catalogue.warnings.push(...warnings);
  return { catalogue, tools };
}
