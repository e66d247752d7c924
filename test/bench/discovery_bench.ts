/**
 * Discovery timings over 2,000 tools (20 namespaces × 100): prints the warm median of catalogue,
 * search and describe. Run: `deno run --allow-all test/bench/discovery_bench.ts`.
 * @module
 */

import { buildCatalog } from "../../src/discovery/catalog.ts";
import { CatalogueEntries } from "../../src/discovery/catalogue_entries.ts";
import { describePath } from "../../src/discovery/describe.ts";
import { SearchIndex } from "../../src/discovery/search.ts";
import { syntheticSnapshot } from "../../src/discovery/synthetic_snapshot.ts";
import { renderScriptGlobals } from "../../src/namespaces/render_types.ts";

/** Runs `fn` a few times to warm up, then `runs` times; answers the median in milliseconds. */
function medianMs(fn: () => unknown, runs = 50): number {
  for (let i = 0; i < 5; i++) fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

const QUERIES = [
  "list",
  "create issue",
  "entries",
  "tools.ns15.get_item15_3",
  "export csv json",
  "stale archive",
  "getItem",
  "zzz nothing",
];

const snapshot = syntheticSnapshot({ namespaces: 20, toolsPerNamespace: 100 });
const tools = snapshot.namespaces.reduce((sum, ns) => sum + ns.catalogue.tools.length, 0);
const indexStart = performance.now();
const index = new SearchIndex(snapshot);
const indexMs = performance.now() - indexStart;
let q = 0;
const rows: Array<[string, number]> = [
  ["SearchIndex build (once per snapshot)", indexMs],
  ["search (warm index, mixed queries)", medianMs(() => index.search(QUERIES[q++ % 8]!))],
  ["search page 3 of 'item'", medianMs(() => index.search("item", { limit: 10, offset: 20 }))],
  ["buildCatalog (prepared entries)", medianMs(() => buildCatalog(index.entries))],
  ["buildCatalog (from snapshot)", medianMs(() => buildCatalog(snapshot), 20)],
  ["CatalogueEntries build", medianMs(() => new CatalogueEntries(snapshot), 20)],
  [
    "describePath (prepared entries)",
    medianMs(() => describePath(index.entries, "tools.ns15.get_item15")),
  ],
  ["renderScriptGlobals", medianMs(() => renderScriptGlobals(snapshot), 20)],
];
console.log(`discovery over ${tools} tools in ${snapshot.namespaces.length} namespaces`);
for (const [name, ms] of rows) console.log(`${name.padEnd(42)} ${ms.toFixed(3)} ms`);
