/**
 * Naming: turns namespace and tool names into script identifiers, and offers the
 * nearest known names for an unknown one ("did you mean"). Every namespace kind, the registry,
 * discovery and the runner use this one module, so `tools.fancy_name.delete_` means the same
 * thing everywhere and every `UnknownTool` suggests names the same way.
 * @module
 */

import type { NamespaceCatalogue } from "./catalogue.ts";

/** Words JavaScript/TypeScript reserve; such names get a `_` suffix (`delete` → `delete_`). */
const RESERVED_WORDS: ReadonlySet<string> = new Set([
  "break",
  "case",
  "catch",
  "class",
  "const",
  "continue",
  "debugger",
  "default",
  "delete",
  "do",
  "else",
  "enum",
  "export",
  "extends",
  "false",
  "finally",
  "for",
  "function",
  "if",
  "import",
  "in",
  "instanceof",
  "new",
  "null",
  "return",
  "super",
  "switch",
  "this",
  "throw",
  "true",
  "try",
  "typeof",
  "var",
  "void",
  "while",
  "with",
  "as",
  "implements",
  "interface",
  "let",
  "package",
  "private",
  "protected",
  "public",
  "static",
  "yield",
  "await",
  "async",
  "arguments",
  "eval",
  "undefined",
  "NaN",
  "Infinity",
]); // deno-fmt-ignore

/** The script globals; a name equal to one of these would shadow it and is refused. */
export const SCRIPT_GLOBALS: ReadonlySet<string> = new Set([
  "tools", "stdin", "args", "search", "describe", "ToolError", "attach", "resources",
]); // deno-fmt-ignore

/** Property names that would break plain objects; refused like script globals. */
const OBJECT_INTERNALS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

/**
 * Makes `name` a valid identifier: characters outside `[A-Za-z0-9_$]` become `_`, a leading
 * digit gets a `_` prefix, a reserved word gets a `_` suffix.
 *
 * @example
 * ```ts
 * import { toIdentifier } from "./names.ts";
 * import assert from "node:assert/strict";
 * assert.equal(toIdentifier("fancy-name"), "fancy_name");
 * assert.equal(toIdentifier("3d"), "_3d");
 * assert.equal(toIdentifier("delete"), "delete_");
 * ```
 */
export function toIdentifier(name: string): string {
  let id = name.replace(/[^A-Za-z0-9_$]/g, "_");
  if (id === "") id = "_";
  if (/^[0-9]/.test(id)) id = `_${id}`;
  if (RESERVED_WORDS.has(id)) id = `${id}_`;
  return id;
}

/** The outcome of naming a set of originals: identifiers, plus what was refused and why. */
export interface NameAssignment {
  /** original name → identifier, for every accepted name. */
  identifiers: Map<string, string>;
  /** Names that cannot be used, each with a message saying why and what to do. */
  refused: { name: string; reason: string }[];
  /** Collisions resolved with a suffix, one message each. */
  warnings: string[];
}

/**
 * Assigns identifiers to a set of names deterministically: names are sorted, so the same set
 * always yields the same suffixes (`a-b` and `a_b` → `a_b` and `a_b_2`), whatever the order
 * the upstream listed them in.
 */
export function assignIdentifiers(
  originals: readonly string[],
  options: { what: string },
): NameAssignment {
  const identifiers = new Map<string, string>();
  const refused: { name: string; reason: string }[] = [];
  const warnings: string[] = [];
  const taken = new Map<string, string>();
  const sorted = [...new Set(originals)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  // Names that are already valid identifiers claim their spelling first, so sanitised names
  // never take an identifier away from a name that needs no change.
  const ordered = [
    ...sorted.filter((n) => toIdentifier(n) === n),
    ...sorted.filter((n) => toIdentifier(n) !== n),
  ];
  for (const original of ordered) {
    const base = toIdentifier(original);
    if (SCRIPT_GLOBALS.has(base) || OBJECT_INTERNALS.has(base)) {
      refused.push({
        name: original,
        reason: `${options.what} "${original}" would shadow ${
          SCRIPT_GLOBALS.has(base) ? "the script global" : "the object property"
        } "${base}": rename it`,
      });
      continue;
    }
    let id = base;
    for (let n = 2; taken.has(id); n++) id = `${base}_${n}`;
    if (id !== base) {
      warnings.push(
        `${options.what} "${original}" and "${taken.get(base)}" both become "${base}": ` +
          `"${original}" is "${id}" (or use ["${original}"])`,
      );
    }
    taken.set(id, original);
    identifiers.set(original, id);
  }
  return { identifiers, refused, warnings };
}

/** The identifiers of a namespace's tools, as `CatalogueNamespace.toolIdentifiers`. */
export interface ToolNameAssignment extends Omit<NameAssignment, "identifiers"> {
  /** original tool name → identifier, for every exposed tool. */
  identifiers: Record<string, string>;
}

/**
 * Assigns script identifiers to the tools of a catalogue, so the registry builds
 * `toolIdentifiers` the same way for every namespace kind. Tool names equal to a script global
 * (`search`, `describe` …) are kept: under `tools.ns.` they shadow nothing. Names that would
 * break plain objects (`__proto__` …) stay refused.
 *
 * @example
 * ```ts
 * import { buildToolIdentifiers } from "./names.ts";
 * import assert from "node:assert/strict";
 * const tool = { description: "", inputType: null, inputOptional: true, outputType: "unknown",
 *   params: [] };
 * const { identifiers } = buildToolIdentifiers({
 *   tools: [{ ...tool, originalName: "get-item" }, { ...tool, originalName: "delete" }],
 *   declarations: "",
 *   warnings: [],
 * });
 * assert.equal(identifiers["get-item"], "get_item");
 * assert.equal(identifiers["delete"], "delete_");
 * ```
 */
export function buildToolIdentifiers(catalogue: NamespaceCatalogue): ToolNameAssignment {
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
  return {
    identifiers: Object.fromEntries(assignment.identifiers),
    refused,
    warnings: assignment.warnings,
  };
}

/**
 * Counts the single-character edits (insert, delete, replace, swap of neighbours) that turn
 * `a` into `b`, so a typo like `gte` for `get` counts as one.
 */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  let current = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, before[j - 2]! + 1);
      }
      current[j] = best;
    }
    [before, previous, current] = [previous, current, before];
  }
  return previous[b.length]!;
}

/** Options of {@linkcode nearestNames}. */
export interface NearestNamesOptions {
  /** At most this many names. @default 5 */
  limit?: number;
  /** Farthest edit distance still offered. @default max(2, a third of the name's length) */
  maxDistance?: number;
}

function fold(name: string): string {
  return name.toLowerCase().replaceAll("-", "_");
}

/**
 * Picks the candidates closest to an unknown name, nearest first (ties: shorter length
 * difference, then name), ignoring case and `-`/`_`. A candidate containing the name, or
 * contained in it, counts as one edit away, so `get` suggests `get_item`.
 *
 * @example
 * ```ts
 * import { nearestNames } from "./names.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(nearestNames("gte", ["get", "set", "list"]), ["get", "set"]);
 * ```
 */
export function nearestNames(
  name: string,
  candidates: Iterable<string>,
  options: NearestNamesOptions = {},
): string[] {
  const limit = options.limit ?? 5;
  const target = fold(name);
  const maxDistance = options.maxDistance ?? Math.max(2, Math.floor(target.length / 3));
  const scored: Array<{ name: string; distance: number; spread: number }> = [];
  for (const candidate of new Set(candidates)) {
    const folded = fold(candidate);
    let distance = editDistance(target, folded);
    const contains = target.length >= 3 && (folded.includes(target) || target.includes(folded));
    if (contains && folded.length >= 2) distance = Math.min(distance, 1);
    if (distance <= maxDistance) {
      scored.push({ name: candidate, distance, spread: Math.abs(folded.length - target.length) });
    }
  }
  scored.sort((a, b) =>
    a.distance - b.distance || a.spread - b.spread ||
    (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
  );
  return scored.slice(0, Math.max(0, limit)).map((entry) => entry.name);
}
