/**
 * The input of discovery: a frozen view of every namespace and named script at one moment,
 * built by the registry and read by the catalogue, search, describe and the LLM guide.
 * @module
 */

import type { NamespaceCatalogue } from "../namespaces/namespace.ts";
import {
  assignIdentifiers,
  type NameAssignment,
  SCRIPT_GLOBALS,
  toIdentifier,
} from "../namespaces/names.ts";
import type { TypedNamespace } from "../namespaces/render_types.ts";

/**
 * One namespace in a snapshot: its names, kind, status, catalogue and the identifier of each
 * exposed tool (from {@linkcode buildToolIdentifiers}). Tools missing from `toolIdentifiers`
 * are not shown anywhere.
 */
export type SnapshotNamespace = TypedNamespace;

/** A named script from `ROOT/scripts/**.ts`, as its leading JSDoc describes it. */
export interface SnapshotScript {
  /** The name `gateway run NAME` takes (path under `scripts/`, no `.ts`). */
  name: string;
  description: string;
  /** `@example` lines, each a command or snippet. */
  examples: string[];
  /** `@param` lines: the arguments the script reads from `args`. */
  params: { name: string; description: string }[];
}

/** Everything discovery reads; replace it whole when a namespace or script changes. */
export interface CatalogueSnapshot {
  namespaces: SnapshotNamespace[];
  scripts: SnapshotScript[];
}

/**
 * Assigns script identifiers to the tools of a catalogue (SPEC §3), so the registry builds
 * `toolIdentifiers` the same way for every namespace kind. Tool names equal to a script global
 * (`search`, `describe` …) are kept: under `tools.ns.` they shadow nothing. Names that would
 * break plain objects (`__proto__` …) stay refused.
 *
 * @example
 * ```ts
 * import { buildToolIdentifiers } from "./catalogue_snapshot.ts";
 * import assert from "node:assert/strict";
 * const tool = { description: "", inputType: null, inputOptional: true, outputType: "unknown",
 *   params: [] };
 * const { identifiers } = buildToolIdentifiers({
 *   tools: [{ ...tool, originalName: "get-item" }, { ...tool, originalName: "delete" }],
 *   declarations: "",
 *   warnings: [],
 * });
 * assert.equal(identifiers.get("get-item"), "get_item");
 * assert.equal(identifiers.get("delete"), "delete_");
 * ```
 */
export function buildToolIdentifiers(catalogue: NamespaceCatalogue): NameAssignment {
  const assignment = assignIdentifiers(
    catalogue.tools.map((tool) => tool.originalName),
    { what: "tool" },
  );
  const taken = new Set(assignment.identifiers.values());
  const refused: NameAssignment["refused"] = [];
  for (const entry of assignment.refused) {
    // names.ts refuses script globals for every name; a tool sits under `tools.ns.` instead.
    const base = toIdentifier(entry.name);
    if (!SCRIPT_GLOBALS.has(base)) {
      refused.push(entry);
      continue;
    }
    let id = base;
    for (let n = 2; taken.has(id); n++) id = `${base}_${n}`;
    taken.add(id);
    assignment.identifiers.set(entry.name, id);
  }
  return { identifiers: assignment.identifiers, refused, warnings: assignment.warnings };
}
