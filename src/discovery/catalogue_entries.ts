/**
 * The items discovery shows (each exposed tool and named script with its path, one-line
 * signature and summary) and the resolution of a path as a script writes it to one of them.
 * @module
 */

import { renderToolSignature } from "../namespaces/render_types.ts";
import { parseDeclarations } from "../namespaces/declaration_index.ts";
import {
  type CatalogueNamespace,
  type CatalogueSnapshot,
  compareText,
  exposedTools,
  firstLine,
  type SnapshotScript,
  type ToolDescriptor,
} from "../protocol/catalogue.ts";

/** Longest summary the catalogue and search show for a tool or script. */
export const SUMMARY_MAX_CHARS = 120;

/**
 * The short description discovery shows: the first sentence of the first line when it fits,
 * else the line cut at a word boundary with "…", never mid-word.
 *
 * @example
 * ```ts
 * import { summarise } from "./catalogue_entries.ts";
 * summarise("Reads a file. Large files are streamed."); // "Reads a file."
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

/** A tool as discovery shows it. */
export interface ToolEntry {
  kind: "tool";
  /** `tools.<ns>.<tool>` with identifiers: how a script calls it. */
  path: string;
  namespace: CatalogueNamespace;
  tool: ToolDescriptor;
  identifier: string;
  /** One-line signature from `renderToolSignature`. */
  signature: string;
  /** First line of the description. */
  summary: string;
}

/** A named script as discovery shows it. */
export interface ScriptEntry {
  kind: "script";
  /** The script's name: what `gateway run` takes. */
  path: string;
  script: SnapshotScript;
  /** `gateway run NAME PARAM…`. */
  signature: string;
  summary: string;
}

/** A tool or a named script. */
export type CatalogueEntry = ToolEntry | ScriptEntry;

/** What a path resolves to: an item, or a whole namespace (`tools.kv`, `kv`). */
export type ResolvedPath = CatalogueEntry | { kind: "namespace"; namespace: CatalogueNamespace };

/**
 * Splits a path as a script writes it into names: `tools.kv["get-item"]` →
 * `["tools", "kv", "get-item"]`. Returns null for text that is not a path (spaces, bad quotes).
 */
export function splitPath(path: string): string[] | null {
  const segments: string[] = [];
  const pattern = /\.?([^.[\]\s"']+)|\[\s*"((?:[^"\\]|\\.)*)"\s*\]|\[\s*'((?:[^'\\]|\\.)*)'\s*\]/y;
  let pos = 0;
  const text = path.trim();
  while (pos < text.length) {
    pattern.lastIndex = pos;
    const match = pattern.exec(text);
    if (match === null) return null;
    if (match[1] !== undefined && pos > 0 && text[pos] !== ".") return null;
    const quoted = match[2] ?? match[3];
    segments.push(quoted === undefined ? match[1]! : quoted.replace(/\\(.)/g, "$1"));
    pos = pattern.lastIndex;
  }
  return segments.length === 0 ? null : segments;
}

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
  #namespaceByName = new Map<string, CatalogueNamespace>();
  #toolByKey = new Map<CatalogueNamespace, Map<string, ToolEntry>>();
  #scriptByName = new Map<string, ScriptEntry>();

  constructor(snapshot: CatalogueSnapshot) {
    this.snapshot = snapshot;
    this.namespaces = [...snapshot.namespaces].sort((a, b) => compareText(a.name, b.name));
    const entries: CatalogueEntry[] = [];
    for (const ns of this.namespaces) {
      this.#namespaceByName.set(ns.identifier, ns);
      this.#namespaceByName.set(ns.name, ns);
      const byKey = new Map<string, ToolEntry>();
      this.#toolByKey.set(ns, byKey);
      const declarations = parseDeclarations(ns.catalogue.declarations);
      for (const { tool, identifier } of exposedTools(ns)) {
        const entry: ToolEntry = {
          kind: "tool",
          path: `tools.${ns.identifier}.${identifier}`,
          namespace: ns,
          tool,
          identifier,
          signature: renderToolSignature(ns, tool, { declarations }),
          summary: summarise(tool.description),
        };
        byKey.set(identifier, entry);
        if (!byKey.has(tool.originalName)) byKey.set(tool.originalName, entry);
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
      };
      this.#scriptByName.set(script.name, entry);
      entries.push(entry);
    }
    this.entries = entries;
  }

  /** Finds a namespace by its name or identifier. */
  namespace(name: string): CatalogueNamespace | undefined {
    return this.#namespaceByName.get(name);
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
    const trimmed = path.trim();
    const script = this.#scriptByName.get(trimmed) ??
      this.#scriptByName.get(trimmed.replace(/\.ts$/, ""));
    if (script !== undefined) return script;
    const segments = splitPath(trimmed);
    if (segments === null) return undefined;
    const rest = segments[0] === "tools" && segments.length > 1 ? segments.slice(1) : segments;
    if (rest.length === 1) {
      const ns = this.namespace(rest[0]!);
      return ns === undefined ? undefined : { kind: "namespace", namespace: ns };
    }
    // Dotted names are tried at every split: `a.b.c` may be namespace `a.b`, tool `c`.
    for (let split = 1; split < rest.length; split++) {
      const ns = this.namespace(rest.slice(0, split).join("."));
      const tool = ns && this.#toolByKey.get(ns)?.get(rest.slice(split).join("."));
      if (tool !== undefined) return tool;
    }
    return undefined;
  }

  /** Every path worth suggesting for a mistyped one: tool paths, namespaces, script names. */
  suggestions(): string[] {
    return [
      ...this.namespaces.map((ns) => `tools.${ns.identifier}`),
      ...this.entries.map((entry) => entry.path),
    ];
  }
}
