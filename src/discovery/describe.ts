/**
 * `describe(path)`: one tool compactly (the signature, the input type in full, the
 * output's top-level shape; deeper with `depth`, everything with `full`), a named script's
 * description, parameters and examples, or a namespace's types.
 * @module
 */

import { renderNamespaceTypes } from "../namespaces/render_types.ts";
import { declarationsUsedBy, parseDeclarations } from "../namespaces/declaration_index.ts";
import { embeddableType, renderJsDoc, toolDocLines } from "../namespaces/type_text.ts";
import { CatalogueEntries, type ScriptEntry, type ToolEntry } from "./catalogue_entries.ts";
import {
  type CatalogueSnapshot,
  describeStatus,
  namespaceKindLabel,
} from "../protocol/catalogue.ts";
import { UnknownPathError } from "../protocol/discovery_paths.ts";
import { composeToolDescription } from "../protocol/discovery_data.ts";
import { composeCompactDescription, type OutlineTool } from "../protocol/type_outline.ts";

export { UnknownPathError };

/** What `describe` answers. */
export interface Description {
  kind: "tool" | "script" | "namespace";
  /** The canonical path: `tools.ns.tool`, `tools.ns`, or the script name. */
  path: string;
  /** TypeScript (tools, namespaces) or plain text (scripts), ready to print. */
  text: string;
}

/**
 * A tool's description without the declarations it uses: JSDoc, call and `.raw` signatures,
 * original name and namespace lines. Completed by `composeToolDescription`.
 */
export function toolDescriptionHead(entry: ToolEntry): string {
  const { namespace: ns, tool, identifier } = entry;
  const params = tool.inputType === null
    ? ""
    : `args${tool.inputOptional ? "?" : ""}: ${embeddableType(tool.inputType)}`;
  const kind = namespaceKindLabel(ns.kind);
  const lines = [
    `${renderJsDoc(toolDocLines(tool))}${entry.path}(${params}): Promise<${
      embeddableType(tool.outputType)
    }>`,
    `${entry.path}.raw(${params}): Promise<GatewayRawResult>`,
  ];
  if (identifier !== tool.originalName) {
    lines.push(
      `// Original name "${tool.originalName}": tools.${ns.identifier}[${
        JSON.stringify(tool.originalName)
      }](…)`,
    );
  }
  if (entry.security !== undefined) lines.push(`// Security: ${entry.security}`);
  lines.push(`// Namespace "${ns.name}": ${kind}, ${describeStatus(ns.status)}.`);
  return lines.join("\n");
}

/** How much of a tool `describe` shows. */
export interface DescribeOptions {
  /** Levels of the output's types shown (1: its top-level shape). @default 1 */
  depth?: number;
  /** Everything: the whole description, `.raw`, and every type the tool reaches with its JSDoc. */
  full?: boolean;
}

/** The facts of a tool the compact description is composed from. */
export function outlineTool(entry: ToolEntry): OutlineTool {
  const { namespace: ns, tool, identifier } = entry;
  const notes: string[] = [];
  if (identifier !== tool.originalName) {
    notes.push(
      `// Original name "${tool.originalName}": tools.${ns.identifier}[${
        JSON.stringify(tool.originalName)
      }](…)`,
    );
  }
  if (entry.security !== undefined) notes.push(`// Security: ${entry.security}`);
  if (ns.status.state !== "ready") {
    notes.push(`// Namespace "${ns.name}": ${describeStatus(ns.status)}.`);
  }
  return {
    path: entry.path,
    description: tool.description,
    inputType: tool.inputType,
    inputOptional: tool.inputOptional,
    outputType: tool.outputType,
    params: tool.params.map(({ name, description }) => ({ name, description })),
    notes,
  };
}

function describeTool(entry: ToolEntry): string {
  const { namespace: ns, tool } = entry;
  const used = declarationsUsedBy(tool, parseDeclarations(ns.catalogue.declarations));
  return composeToolDescription(
    toolDescriptionHead(entry),
    ns.identifier,
    used.map((declaration) => declaration.text),
  );
}

/** What `describe` answers for a named script: its signature, description, params, examples. */
export function describeScript(entry: ScriptEntry): string {
  const { script } = entry;
  const lines = [`Script "${script.name}": ${entry.signature}`];
  if (script.description.trim() !== "") lines.push("", script.description.trim());
  if (script.params.length > 0) {
    const width = Math.max(...script.params.map((p) => p.name.length));
    lines.push("", "Parameters (in `args`, in this order):");
    for (const p of script.params) lines.push(`  ${p.name.padEnd(width)}  ${p.description}`);
  }
  if (script.examples.length > 0) {
    lines.push("", "Examples:", ...script.examples.map((example) => `  ${example}`));
  }
  return `${lines.join("\n")}\n`;
}

/**
 * Describes what a path names: a tool (`tools.kv.get`, `kv.get`, `tools.kv["get-item"]`), a
 * namespace (`tools.kv`, `kv`) or a named script. Throws {@linkcode UnknownPathError} with the
 * nearest names when nothing matches.
 *
 * @example
 * ```ts
 * import { describePath } from "./describe.ts";
 * import { syntheticSnapshot } from "./synthetic_snapshot.ts";
 * import assert from "node:assert/strict";
 * const description = describePath(syntheticSnapshot(), "tools.kv.get_entry");
 * assert.equal(description.kind, "tool");
 * assert.match(description.text, /tools\.kv\.get_entry\(args: GetEntryArgs\): Promise<Entry>/);
 * ```
 */
export function describePath(
  source: CatalogueSnapshot | CatalogueEntries,
  path: string,
  options: DescribeOptions = {},
): Description {
  const entries = source instanceof CatalogueEntries ? source : new CatalogueEntries(source);
  const resolved = entries.resolve(path);
  if (resolved === undefined) throw new UnknownPathError(path, entries.paths.nearestPaths(path));
  switch (resolved.kind) {
    case "namespace":
      return {
        kind: "namespace",
        path: `tools.${resolved.namespace.identifier}`,
        text: renderNamespaceTypes(resolved.namespace),
      };
    case "tool":
      return {
        kind: "tool",
        path: resolved.path,
        text: options.full ? describeTool(resolved) : composeCompactDescription(
          outlineTool(resolved),
          entries.declarationTexts(resolved.namespace),
          options.depth === undefined ? {} : { depth: options.depth },
        ),
      };
    case "script":
      return { kind: "script", path: resolved.path, text: describeScript(resolved) };
  }
}
