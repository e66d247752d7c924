/**
 * Suggestions for a mistyped tool name, so an `UnknownTool` error can say what was meant.
 * @module
 */

/**
 * The candidates closest to `name`, best first: case-insensitive edit distance, where `-` and
 * `_` count as equal and a candidate containing `name` (or contained in it) ranks high. Only
 * candidates within half the longer name's length are returned.
 *
 * @example
 * ```ts
 * import { nearestNames } from "./nearest_names.ts";
 * nearestNames("ecoh", ["echo", "get-sum", "get-env"]); // ["echo"]
 * ```
 */
export function nearestNames(
  name: string,
  candidates: readonly string[],
  options: { limit?: number } = {},
): string[] {
  const wanted = fold(name);
  return candidates
    .map((candidate) => {
      const folded = fold(candidate);
      const contains = folded.includes(wanted) || wanted.includes(folded);
      const distance = contains ? 0.5 : editDistance(wanted, folded);
      return { candidate, distance, limit: Math.max(wanted.length, folded.length) / 2 };
    })
    .filter((entry) => entry.distance <= entry.limit)
    .sort((a, b) => a.distance - b.distance || (a.candidate < b.candidate ? -1 : 1))
    .slice(0, options.limit ?? 3)
    .map((entry) => entry.candidate);
}

function fold(name: string): string {
  return name.toLowerCase().replaceAll("-", "_");
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + cost,
      );
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
