/**
 * "Did you mean" for unknown names: edit distance and a ranked list of the nearest candidates,
 * used by `describe` and by the router's `UnknownTool` errors.
 * @module
 */

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
 * import { nearestNames } from "./nearest_names.ts";
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
