/**
 * The items discovery shows (each exposed tool and named script with its path, one-line
 * signature and summary) and the resolution of a path as a script writes it to one of them.
 * @module
 */

import { renderToolSignature } from "../namespaces/render_types.ts";
import { topLevelFields } from "../protocol/type_outline.ts";
import { type DeclarationIndex, parseDeclarations } from "../namespaces/declaration_index.ts";
import {
  type CatalogueNamespace,
  type CatalogueSnapshot,
  compareText,
  exposedTools,
  firstLine,
  securityLine,
  type SnapshotScript,
  type ToolDescriptor,
} from "../protocol/catalogue.ts";
import {
  type DiscoveryScriptItem,
  type DiscoveryToolItem,
  PathIndex,
  type ResolvedItem,
} from "../protocol/discovery_paths.ts";

export { splitPath } from "../protocol/discovery_paths.ts";

/** Longest summary the catalogue and search show for a tool or script. */
export const SUMMARY_MAX_CHARS = 120;

/**
 * The short description discovery shows: the first sentence of the first line when it fits,
 * else the line cut at a word boundary with "…", never mid-word.
 *
 * @example
 * ```ts
 * import { summarise } from "./catalogue_entries.ts";
 * import assert from "node:assert/strict";
 * assert.equal(summarise("Reads a file. Large files are streamed."), "Reads a file.");
 * ```
 */
export function summarise(description: string, max = SUMMARY_MAX_CHARS): string {
  const line = firstLine(description);
  const sentence = /^.*?[.!?](?=\s|$)/.exec(line)?.[0] ?? line;
  if (sentence.length <= max) return sentence;
  const cut = sentence.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:]+$/, "")}…`;
}

/** A tool as discovery shows it, with its namespace and descriptor. */
export interface ToolEntry extends DiscoveryToolItem {
  namespace: CatalogueNamespace;
  tool: ToolDescriptor;
}

/** A named script as discovery shows it, with what its JSDoc says. */
export interface ScriptEntry extends DiscoveryScriptItem {
  script: SnapshotScript;
}

/** A tool or a named script. */
export type CatalogueEntry = ToolEntry | ScriptEntry;

/** What a path resolves to: an item, or a whole namespace (`tools.kv`, `kv`). */
export type ResolvedPath = ResolvedItem<CatalogueEntry, CatalogueNamespace>;

function scriptSignature(script: SnapshotScript): string {
  return ["gateway run", script.name, ...script.params.map((p) => p.name.toUpperCase())].join(" ");
}

/**
 * Every item of a snapshot in one list (tools by namespace name then original name, then
 * scripts by name), with lookup by any path a script or a person would write. Built once per
 * snapshot and shared by search and describe.
 */
export class CatalogueEntries {
  /** The snapshot these entries were built from. */
  readonly snapshot: CatalogueSnapshot;
  /** Every item, in a fixed order. */
  readonly entries: readonly CatalogueEntry[];
  /** Namespaces sorted by name. */
  readonly namespaces: readonly CatalogueNamespace[];
  /** Path resolution over these entries. */
  readonly paths: PathIndex<CatalogueEntry, CatalogueNamespace>;
  /** Each namespace's declarations (by identifier), read once for signatures and describe. */
  readonly declarations: ReadonlyMap<string, DeclarationIndex>;

  constructor(snapshot: CatalogueSnapshot) {
    this.snapshot = snapshot;
    this.namespaces = [...snapshot.namespaces].sort((a, b) => compareText(a.name, b.name));
    const entries: CatalogueEntry[] = [];
    const byNamespace = new Map<string, DeclarationIndex>();
    this.declarations = byNamespace;
    for (const ns of this.namespaces) {
      const declarations = parseDeclarations(ns.catalogue.declarations);
      byNamespace.set(ns.identifier, declarations);
      for (const { tool, identifier } of exposedTools(ns)) {
        const entry: ToolEntry = {
          kind: "tool",
          path: `tools.${ns.identifier}.${identifier}`,
          namespace: ns,
          tool,
          identifier,
          signature: renderToolSignature(ns, tool, { declarations }),
          summary: summarise(tool.description),
          name: tool.originalName,
          paramNames: tool.params.map((p) => p.name),
          description: tool.description,
          ...(tool.security !== undefined ? { security: securityLine(tool.security) } : {}),
        };
        entries.push(entry);
      }
    }
    const scripts = [...snapshot.scripts].sort((a, b) => compareText(a.name, b.name));
    for (const script of scripts) {
      const entry: ScriptEntry = {
        kind: "script",
        path: script.name,
        script,
        signature: scriptSignature(script),
        summary: summarise(script.description),
        name: script.name,
        paramNames: script.params.map((p) => p.name),
        description: script.description,
        examples: script.examples,
      };
      entries.push(entry);
    }
    this.entries = entries;
    this.paths = new PathIndex(this.namespaces, entries);
  }

  /** Finds a namespace by its name or identifier. */
  namespace(name: string): CatalogueNamespace | undefined {
    return this.paths.namespace(name);
  }

  /** A namespace's declarations as name → text (with JSDoc), in declaration order. */
  declarationTexts(ns: CatalogueNamespace): Record<string, string> {
    const index = this.declarations.get(ns.identifier) ??
      parseDeclarations(ns.catalogue.declarations);
    return Object.fromEntries([...index.values()].map((entry) => [entry.name, entry.text]));
  }

  /**
   * The top-level fields of a tool's output (`entities: Entity[]` …), or null when the tool is
   * unknown or its output is not an object: for hints about an object used as an array.
   */
  outputFields(namespace: string, tool: string): string[] | null {
    const resolved = this.resolve(`tools.${namespace}.${tool}`) ??
      this.resolve(`tools.${namespace}[${JSON.stringify(tool)}]`);
    if (resolved?.kind !== "tool") return null;
    const fields = topLevelFields(
      resolved.tool.outputType,
      this.declarationTexts(resolved.namespace),
    );
    return fields?.fields ?? null;
  }

  /** The tool entries of one namespace, in path order. */
  toolsOf(ns: CatalogueNamespace): ToolEntry[] {
    return this.entries.filter((e): e is ToolEntry => e.kind === "tool" && e.namespace === ns);
  }

  /**
   * Resolves a path: `tools.kv.get`, `kv.get`, `tools.kv["get-item"]`, `tools["my-ns"].get`,
   * `tools.kv`, `kv`, a script name (with or without `.ts`). Undefined when nothing matches.
   */
  resolve(path: string): ResolvedPath | undefined {
    return this.paths.resolve(path);
  }

  /** Every path worth suggesting for a mistyped one: tool paths, namespaces, script names. */
  suggestions(): string[] {
    return this.paths.suggestions();
  }
}
