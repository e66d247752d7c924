/**
 * API namespaces at scale: loads the largest real OpenAPI document the tests install (GitHub's,
 * > 1,000 operations) and prints the time and memory to load it, its counts (operations,
 * included, left out with reasons), and warm `search` and `/types/NS` over it. Targets are
 * stated, never asserted. Run: `deno run --allow-all test/bench/openapi_bench.ts`.
 * @module
 */

import { join } from "node:path";
import { NamespaceRegistry } from "../../src/namespaces/namespace_registry.ts";
import { OpenApiNamespace } from "../../src/namespaces/openapi/openapi_namespace.ts";
import { renderNamespaceTypes } from "../../src/namespaces/render_types.ts";
import { SearchIndex } from "../../src/discovery/search.ts";
import { GITHUB_SPEC } from "../support/prism_server.ts";

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

function row(label: string, value: string, note = ""): void {
  console.log(`${label.padEnd(58)} ${value.padStart(12)}${note ? `  ${note}` : ""}`);
}

if (!(await Deno.stat(GITHUB_SPEC).then(() => true, () => false))) {
  console.log("(GitHub's document not installed: run deno task test once to install test/servers)");
  Deno.exit(0);
}

/** Loads one document and prints its figures. */
async function benchDocument(label: string, file: string): Promise<void> {
  const before = Deno.memoryUsage();
  const ns = new OpenApiNamespace("github", {
    openapi: file,
    headers: {},
    include: [],
    exclude: [],
    writes: "ask",
    disabled: false,
  }, { baseDir: "/", cacheDir: "/nonexistent" });
  const start = performance.now();
  await ns.start();
  const loadMs = performance.now() - start;
  const after = Deno.memoryUsage();
  const status = ns.status();
  if (status.state !== "ready") {
    throw new Error(`${label} did not load: ${JSON.stringify(status)}`);
  }
  const stats = ns.stats!;
  const notes = ns.catalogue().warnings;
  row(`${label}: operations`, String(stats.operations));
  row("  included as tools", String(stats.included));
  row("  left out (each with a reason in `gateway tools NS`)", String(stats.leftOut));
  row("  notes (left out, loosened, renamed)", String(notes.length));
  for (const note of notes.slice(0, 5)) console.log(`    ${note.slice(0, 150)}`);
  row("  load: read + parse + catalogue + types", `${loadMs.toFixed(0)} ms`, "(target ≤ 2000 ms)");
  row(
    "  memory held after load (heap / rss growth)",
    `${((after.heapUsed - before.heapUsed) / 1e6).toFixed(0)} / ${
      ((after.rss - before.rss) / 1e6).toFixed(0)
    } MB`,
  );
  row("  TypeScript declarations", `${(ns.catalogue().declarations.length / 1e6).toFixed(2)} MB`);

  const registry = new NamespaceRegistry();
  registry.add(ns);
  const typed = registry.typed();
  const index = new SearchIndex({ namespaces: typed, scripts: [] });
  let q = 0;
  const queries = ["list repos for org", "create issue", "delete webhook", "actions secrets"];
  row(
    "  search over its tools (warm)",
    `${medianMs(() => index.search(queries[q++ % queries.length]!)).toFixed(2)} ms`,
    "(target ≤ 5 ms)",
  );
  const firstStart = performance.now();
  renderNamespaceTypes(typed[0]!);
  row(
    "  /types/NS first render after a change (then cached)",
    `${(performance.now() - firstStart).toFixed(2)} ms`,
  );
  row(
    "  /types/NS render (warm)",
    `${medianMs(() => renderNamespaceTypes(typed[0]!), 20).toFixed(2)} ms`,
    "(target ≤ 5 ms)",
  );
  await registry.stopAll();
}

const generated = join(GITHUB_SPEC, "..");
await benchDocument("GitHub REST (api.github.com.json)", GITHUB_SPEC);
console.log("");
await benchDocument("GitHub Enterprise Cloud (ghec.json)", join(generated, "ghec.json"));
