/**
 * Validates a local tool's argument against its extracted TypeScript type before the call is
 * sent, so a bad argument fails as `InvalidToolInput` with the path, the rule and
 * the signature, as it does for MCP tools; `ToolError` stays the tool saying no.
 * @module
 */

import type { Diagnostic } from "../protocol/run_document.ts";

/**
 * Codes of "this value does not fit the parameter" errors (wrong type, missing or unknown
 * property, wrong argument count); any other diagnostic leaves the call to the tool.
 */
const ARGUMENT_CODES: ReadonlySet<number> = new Set([
  2322,
  2326,
  2345,
  2353,
  2559,
  2561,
  2739,
  2740,
  2741,
  2769,
  2820,
]);

/** Arguments larger than this (as JSON) are not checked: checking costs time per byte. */
const MAX_CHECKED_JSON = 64 * 1024;

/** Where the tool is, as a script writes it. */
export interface LocalToolPath {
  /** Namespace identifier (`tools.<ns>`). */
  namespace: string;
  /** Tool identifier (`tools.<ns>.<tool>`). */
  tool: string;
}

/**
 * Answers why `args` does not fit the tool's parameter type (a message naming the tool, the
 * problem and the expected signature), null when it fits, or undefined when it was not checked
 * (too large, not JSON, or only the callee is in question): an unchecked argument is no verdict
 * on its shape. `check` is the script checker's check of a snippet.
 *
 * @example
 * ```ts
 * import { localInputProblem } from "./local_input_check.ts";
 * import assert from "node:assert/strict";
 * // The script checker's verdict on `tools.kv.get({"key":1});`, as it reports it:
 * const message = "Type 'number' is not assignable to type 'string'; expected " +
 *   "tools.kv.get({ key: string })";
 * const check = () => Promise.resolve([{ message, line: 1, column: 15, code: 2322 }]);
 * const problem = await localInputProblem({ namespace: "kv", tool: "get" }, { key: 1 }, check);
 * assert.equal(problem, `Invalid input for tool "kv.get": ${message}`);
 * ```
 */
export async function localInputProblem(
  path: LocalToolPath,
  args: unknown,
  check: (source: string) => Promise<Diagnostic[]>,
): Promise<string | null | undefined> {
  let json: string | undefined;
  try {
    json = args === undefined ? "" : JSON.stringify(args);
  } catch {
    return undefined;
  }
  if (json === undefined || json.length > MAX_CHECKED_JSON) return undefined;
  const call = `tools.${path.namespace}.${path.tool}`;
  const diagnostics = await check(`${call}(${json});\n`);
  // Only what is wrong with the argument counts: a diagnostic on the callee (the checker's
  // types lag a namespace that just changed) must never fail a call the tool would take.
  const first =
    diagnostics.find((d) =>
      d.line === 1 && d.column > call.length + 1 && d.code !== undefined &&
      ARGUMENT_CODES.has(d.code)
    ) ?? diagnostics.find((d) => d.code === 2554 || d.code === 2555);
  if (first === undefined) return diagnostics.length === 0 ? null : undefined;
  const where = first.message.includes("expected tools.")
    ? ""
    : ` (signature: describe("${call}"))`;
  return `Invalid input for tool "${path.namespace}.${path.tool}": ${first.message}${where}`;
}

/** Strings longer than this stand for any string in an argument's shape. */
const SHAPE_STRING_CHARS = 64;

/**
 * The shape of an argument, for remembering that it fitted: its structure with numbers as
 * "a number" and long strings as "a string", short strings, booleans and null as they are (so
 * string literal types such as `"fast" | "slow"` still decide). A loop calling a tool with
 * `{ id: i }` then pays for one check, not one per call; numeric literal types are the one
 * thing a remembered shape can miss, and then the tool itself refuses the value.
 *
 * `stringsDecide` false (the tool's type has no string literal type: `stringValuesDecide` of
 * its descriptor) makes every string "a string", so `kv.get({ key })` over a thousand keys is
 * checked once, not a thousand times.
 */
export function argumentShape(args: unknown, stringsDecide = true): string | null {
  const keptChars = stringsDecide ? SHAPE_STRING_CHARS : -1;
  // Arguments from a script arrive as parsed JSON: plain values, shaped without a replacer
  // called on every value; anything else takes JSON.stringify's path below.
  const plain = plainShape(args ?? null, 0, keptChars);
  if (plain !== undefined) return plain;
  try {
    return JSON.stringify(
      args ?? null,
      (_key, value: unknown) =>
        typeof value === "number"
          ? "\u0000number"
          : typeof value === "string" && value.length > keptChars
          ? "\u0000string"
          : value,
    ) ?? null;
  } catch {
    return null;
  }
}

/** Deepest plain value {@linkcode plainShape} walks; deeper ones take the general path. */
const PLAIN_SHAPE_DEPTH = 32;
const NUMBER_SHAPE = JSON.stringify("\u0000number");
const STRING_SHAPE = JSON.stringify("\u0000string");

/**
 * {@linkcode argumentShape}'s text for a value made of JSON's own types only (plain objects,
 * arrays, strings, finite numbers, booleans, null), the same text its replacer gives;
 * undefined for anything else. Strings longer than `keptChars` are "a string".
 */
function plainShape(value: unknown, depth: number, keptChars: number): string | undefined {
  switch (typeof value) {
    case "number":
      return NUMBER_SHAPE;
    case "string":
      return value.length > keptChars ? STRING_SHAPE : JSON.stringify(value);
    case "boolean":
      return value ? "true" : "false";
    case "object": {
      if (value === null) return "null";
      if (depth >= PLAIN_SHAPE_DEPTH) return undefined;
      // Built by concatenation, with each key's JSON text remembered: a script's calls pass
      // the same few keys again and again (every unchecked local call is shaped).
      if (Array.isArray(value)) {
        let text = "[";
        for (let i = 0; i < value.length; i++) {
          const shape = plainShape(value[i], depth + 1, keptChars);
          if (shape === undefined) return undefined;
          text += i === 0 ? shape : `,${shape}`;
        }
        return `${text}]`;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return undefined;
      if ("toJSON" in value) return undefined;
      let text = "{";
      let first = true;
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue;
        const shape = plainShape((value as Record<string, unknown>)[key], depth + 1, keptChars);
        if (shape === undefined) return undefined;
        text += `${first ? "" : ","}${quotedKey(key)}:${shape}`;
        first = false;
      }
      return `${text}}`;
    }
    default:
      return undefined;
  }
}

/** JSON texts of object keys seen in arguments (a bounded cache). */
const QUOTED_KEYS = new Map<string, string>();

function quotedKey(key: string): string {
  let quoted = QUOTED_KEYS.get(key);
  if (quoted === undefined) {
    if (QUOTED_KEYS.size >= MAX_REMEMBERED_SHAPES) QUOTED_KEYS.clear();
    quoted = JSON.stringify(key);
    QUOTED_KEYS.set(key, quoted);
  }
  return quoted;
}

/** Most remembered shapes; past this the memory starts over (it is only a cache). */
const MAX_REMEMBERED_SHAPES = 1024;

/**
 * Argument shapes that fitted their tool's parameter type, so a check is made once per shape,
 * not once per call (a check is a round trip through the type checker: ~10 ms). Cleared when
 * the catalogue (and so the types) change.
 */
export class FittingShapes {
  readonly #keys = new Set<string>();

  /**
   * The key of `args` for the tool at `path`, or null when it has no shape (not JSON);
   * `stringsDecide` as {@linkcode argumentShape} takes it.
   */
  key(path: LocalToolPath, args: unknown, stringsDecide = true): string | null {
    return this.keyOf(path, argumentShape(args, stringsDecide));
  }

  /** {@linkcode key} from a shape already taken (a call's path shapes its argument once). */
  keyOf(path: LocalToolPath, shape: string | null): string | null {
    return shape === null ? null : `${path.namespace}.${path.tool}\u0000${shape}`;
  }

  has(key: string): boolean {
    return this.#keys.has(key);
  }

  add(key: string): void {
    if (this.#keys.size >= MAX_REMEMBERED_SHAPES) this.#keys.clear();
    this.#keys.add(key);
  }

  clear(): void {
    this.#keys.clear();
  }
}
