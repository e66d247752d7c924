/**
 * `pinned` in `gateway.json`: tools whose compact signatures the guides show up front, so a
 * model calls the few tools a project always uses without searching for them first.
 * @module
 */

import type { CatalogueEntries } from "./catalogue_entries.ts";

/**
 * One line per pinned path: its signature (the namespace's type names unqualified) and summary;
 * a path that names no tool says so with the nearest ones, rather than vanishing.
 *
 * @example
 * ```ts
 * import { pinnedLines } from "./pinned_tools.ts";
 * import { CatalogueEntries } from "./catalogue_entries.ts";
 * import { syntheticSnapshot } from "./synthetic_snapshot.ts";
 * import assert from "node:assert/strict";
 * const entries = new CatalogueEntries(syntheticSnapshot());
 * const [line, missing] = pinnedLines(entries, ["kv.get_entry", "kv.nope"]);
 * assert.match(line!, /^tools\.kv\.get_entry\(args: \{ id: string \}\): Promise<.*> — Gets one/);
 * assert.match(missing!, /^"kv\.nope" is pinned but names no tool/);
 * ```
 */
export function pinnedLines(entries: CatalogueEntries, pinned: readonly string[]): string[] {
  return pinned.map((path) => {
    const resolved = entries.resolve(path);
    if (resolved?.kind !== "tool") {
      const nearest = entries.paths.nearestPaths(path).slice(0, 3);
      return `"${path}" is pinned but names no tool${
        nearest.length > 0 ? ` (nearest: ${nearest.join(", ")})` : ""
      }`;
    }
    const signature = resolved.signature.replace(/\bGatewayNamespaces\.[\w$]+\./g, "");
    return resolved.summary ? `${signature} — ${resolved.summary}` : signature;
  });
}
