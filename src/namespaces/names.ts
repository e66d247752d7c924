/**
 * Turns namespace and tool names into script identifiers (SPEC §3). Every namespace kind uses
 * this one module, so `tools.fancy_name.delete_` means the same thing everywhere.
 * @module
 */

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

/** The script globals (SPEC §4); a name equal to one of these would shadow it and is refused. */
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
