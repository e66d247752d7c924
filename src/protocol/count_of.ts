/**
 * A count with its noun in the right number ("1 tool", "2 tools"), for every line a person
 * reads: "1 tools" reads as a mistake.
 * @module
 */

/**
 * `n` and `noun`, plural unless `n` is 1; `plural` for nouns that do not just add an "s".
 *
 * @example
 * ```ts
 * import { countOf } from "./count_of.ts";
 * import assert from "node:assert/strict";
 * assert.equal(countOf(1, "tool"), "1 tool");
 * assert.equal(countOf(0, "tool"), "0 tools");
 * assert.equal(countOf(2, "match", "matches"), "2 matches");
 * ```
 */
export function countOf(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}
