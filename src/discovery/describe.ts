/**
 * `describe(path)` (SPEC §4, §7): the full declaration of one tool with its JSDoc and the types
 * it uses, a named script's description, parameters and examples, or a namespace's types.
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
import { nearestNames } from "../protocol/names.ts";

/** What `describe` answers. */
export interface Description {
  kind: "tool" | "script" | "namespace";
  /** The canonical path: `tools.ns.tool`, `tools.ns`, or the script name. */
  path: string;
  /** TypeScript (tools, namespaces) or plain text (scripts), ready to print. */
  text: string;
}

/**
 * Thrown by {@linkcode describePath} for a path that names nothing; callers catch it to answer
 * with the nearest names instead of a generic failure.
 */
export class UnknownPathError extends Error {
  /** The path as given. */
  readonly path: string;
  /** Nearest known paths, nearest first; may be empty. */
  readonly nearest: string[];
  constructor(path: string, nearest: string[]) {
    super(
      `Cannot describe "${path}": no such tool, namespace or script` +
        (nearest.length > 0
          ? ` (did you mean ${nearest.map((name) => `"${name}"`).join(", ")}?)`
          : '; search("words") lists what exists'),
    );
    this.name = "UnknownPathError";
    this.path = path;
    this.nearest = nearest;
  }
}

function describeTool(entry: ToolEntry): string {
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
  lines.push(`// Namespace "${ns.name}": ${kind}, ${describeStatus(ns.status)}.`);
  const used = declarationsUsedBy(tool, parseDeclarations(ns.catalogue.declarations));
  if (used.length > 0) {
    lines.push(
      "",
      `// Types used, declared in namespace ${ns.identifier} (GatewayNamespaces.${ns.identifier}):`,
      ...used.map((entry) => entry.text),
    );
  }
  return `${lines.join("\n")}\n`;
}

function describeScript(entry: ScriptEntry): string {
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

function nearestPaths(entries: CatalogueEntries, path: string): string[] {
  const byKey = new Map<string, string>();
  const offer = (key: string, full: string) => {
    if (!byKey.has(key)) byKey.set(key, full);
  };
  for (const ns of entries.namespaces) offer(ns.identifier, `tools.${ns.identifier}`);
  for (const entry of entries.entries) {
    if (entry.kind === "tool") {
      offer(`${entry.namespace.identifier}.${entry.identifier}`, entry.path);
      offer(entry.identifier, entry.path);
      offer(entry.tool.originalName, entry.path);
    } else {
      offer(entry.path, entry.path);
    }
  }
  const target = path.trim().replace(/^tools\./, "");
  const near = nearestNames(target, byKey.keys(), { limit: 10 }).map((key) => byKey.get(key)!);
  return [...new Set(near)].slice(0, 5);
}

/**
 * Describes what a path names: a tool (`tools.kv.get`, `kv.get`, `tools.kv["get-item"]`), a
 * namespace (`tools.kv`, `kv`) or a named script. Throws {@linkcode UnknownPathError} with the
 * nearest names when nothing matches.
 *
 * @example
 * ```ts ignore
 * console.log(describePath(snapshot, "tools.kv.get").text);
 * ```
 */
export function describePath(
  source: CatalogueSnapshot | CatalogueEntries,
  path: string,
): Description {
  const entries = source instanceof CatalogueEntries ? source : new CatalogueEntries(source);
  const resolved = entries.resolve(path);
  if (resolved === undefined) throw new UnknownPathError(path, nearestPaths(entries, path));
  switch (resolved.kind) {
    case "namespace":
      return {
        kind: "namespace",
        path: `tools.${resolved.namespace.identifier}`,
        text: renderNamespaceTypes(resolved.namespace),
      };
    case "tool":
      return { kind: "tool", path: resolved.path, text: describeTool(resolved) };
    case "script":
      return { kind: "script", path: resolved.path, text: describeScript(resolved) };
  }
}
