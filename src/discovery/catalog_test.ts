import assert from "node:assert/strict";
import { buildCatalog, CHARS_PER_TOKEN } from "./catalog.ts";
import { CatalogueEntries } from "./catalogue_entries.ts";
import type { CatalogueSnapshot } from "../protocol/catalogue.ts";
import { syntheticSnapshot } from "./synthetic_snapshot.ts";

function signatureLines(text: string): string[] {
  return text.split("\n").filter((line) => line.startsWith("tools."));
}

Deno.test("`buildCatalog()` is COMPLETE and shows every signature when the budget allows", () => {
  const snapshot = syntheticSnapshot();
  const catalog = buildCatalog(snapshot, { budgetTokens: 100_000 });
  assert.equal(catalog.complete, true);
  assert.equal(catalog.total, 96);
  assert.equal(catalog.shown, 96);
  assert.match(
    catalog.text,
    /^Tool catalogue: COMPLETE, all 96 tools shown \(budget 100000 tokens\)\./,
  );
  const entries = new CatalogueEntries(snapshot);
  const lines = new Set(signatureLines(catalog.text));
  for (const entry of entries.entries) {
    if (entry.kind === "tool") assert.ok(lines.has(entry.signature), `missing ${entry.path}`);
  }
  for (const ns of catalog.namespaces) {
    assert.equal(ns.shown, ns.count);
    assert.match(catalog.text, new RegExp(`^- ${ns.identifier}\\b.*: 8 tools, COMPLETE;`, "m"));
  }
});

Deno.test("`buildCatalog()` stays within the budget and says PARTIAL with the counts shown", () => {
  const snapshot = syntheticSnapshot();
  for (const budgetTokens of [400, 700, 1000, 2000, 3000]) {
    const catalog = buildCatalog(snapshot, { budgetTokens });
    assert.ok(
      catalog.text.length <= budgetTokens * CHARS_PER_TOKEN,
      `${catalog.text.length} chars > ${budgetTokens} tokens`,
    );
    assert.equal(catalog.complete, false);
    assert.ok(catalog.shown > 0 && catalog.shown < catalog.total);
    assert.equal(signatureLines(catalog.text).length, catalog.shown);
    assert.match(
      catalog.text,
      new RegExp(`^Tool catalogue: PARTIAL, ${catalog.shown} of 96 tools shown`),
    );
    for (const ns of catalog.namespaces) {
      const label = ns.shown === ns.count ? "COMPLETE" : `PARTIAL, ${ns.shown} of 8 shown`;
      assert.match(catalog.text, new RegExp(`^- ${ns.identifier}\\b.*: 8 tools, ${label};`, "m"));
    }
    assert.match(catalog.text, /search\("words"/);
    assert.match(catalog.text, /describe\("tools\.ns\.tool"\)/);
    assert.match(catalog.text, /`gateway tools types NS`/);
  }
});

Deno.test("`buildCatalog()` lists every namespace with count and status even with no budget", () => {
  const catalog = buildCatalog(syntheticSnapshot(), { budgetTokens: 0 });
  assert.equal(catalog.shown, 0);
  assert.equal(catalog.namespaces.length, 12);
  assert.match(catalog.text, /^- jira: 8 tools, PARTIAL, 0 of 8 shown; mcp, failed: connect/m);
  assert.match(catalog.text, /^- weather: 8 tools, .*; local, starting$/m);
  assert.match(catalog.text, /^- fancy_name \("fancy-name"\): 8 tools/m);
  assert.match(catalog.text, /^Named scripts: 3 /m);
});

Deno.test("`buildCatalog()` says which namespaces are still starting, even when COMPLETE", () => {
  const snapshot = syntheticSnapshot({ namespaces: 2 });
  const starting = syntheticSnapshot({ namespaces: 12 }).namespaces.find((ns) =>
    ns.status.state === "starting"
  )!;
  const empty = { ...starting, catalogue: { ...starting.catalogue, tools: [] } };
  const catalog = buildCatalog({ ...snapshot, namespaces: [...snapshot.namespaces, empty] }, {
    budgetTokens: 100_000,
  });
  assert.equal(catalog.complete, true);
  const [first, second] = catalog.text.split("\n");
  assert.match(first ?? "", /^Tool catalogue: COMPLETE, all 16 tools shown/);
  assert.equal(
    second,
    "Still starting: weather (its tools are not all listed yet; run the catalogue again shortly).",
  );
  assert.match(catalog.text, /^- weather: 0 tools, tools not known yet; local, starting$/m);
  const ready = buildCatalog(snapshot, { budgetTokens: 100_000 });
  assert.doesNotMatch(ready.text, /Still starting/);
});

Deno.test("`buildCatalog()` adds signatures round-robin so no namespace is starved", () => {
  const snapshot = syntheticSnapshot();
  for (const budgetTokens of [700, 1000, 1500, 2000]) {
    const shown = buildCatalog(snapshot, { budgetTokens }).namespaces.map((ns) => ns.shown);
    assert.ok(Math.min(...shown) >= 1, `a namespace got nothing at ${budgetTokens}: ${shown}`);
    assert.ok(Math.max(...shown) - Math.min(...shown) <= 1, `unfair at ${budgetTokens}: ${shown}`);
  }
});

Deno.test("`buildCatalog()` shows each namespace's cheapest signatures first", () => {
  const snapshot = syntheticSnapshot();
  const catalog = buildCatalog(snapshot, { budgetTokens: 1200 });
  const entries = new CatalogueEntries(snapshot);
  const lines = new Set(signatureLines(catalog.text));
  for (const ns of entries.namespaces) {
    const tools = entries.toolsOf(ns);
    const cost = (signature: string) =>
      signature.length + (tools.find((t) => t.signature === signature)?.summary.length ?? 0);
    const shownCosts = tools.filter((t) => lines.has(t.signature)).map((t) => cost(t.signature));
    const hiddenCosts = tools.filter((t) => !lines.has(t.signature)).map((t) => cost(t.signature));
    assert.ok(
      Math.max(...shownCosts) <= Math.min(...hiddenCosts),
      `${ns.name} skipped a cheap one`,
    );
  }
});

Deno.test("`buildCatalog()` gives the same text whatever order the snapshot lists things in", () => {
  const snapshot = syntheticSnapshot();
  const shuffled: CatalogueSnapshot = {
    scripts: [...snapshot.scripts].reverse(),
    namespaces: [...snapshot.namespaces].reverse().map((ns) => ({
      ...ns,
      catalogue: { ...ns.catalogue, tools: [...ns.catalogue.tools].reverse() },
    })),
  };
  const a = buildCatalog(snapshot, { budgetTokens: 900 });
  const b = buildCatalog(shuffled, { budgetTokens: 900 });
  assert.equal(a.text, b.text);
  assert.deepEqual(a.namespaces, b.namespaces);
  assert.equal(buildCatalog(snapshot).text, buildCatalog(new CatalogueEntries(snapshot)).text);
});

Deno.test("`buildCatalog()` refuses a negative budget", () => {
  assert.throws(
    () => buildCatalog(syntheticSnapshot(), { budgetTokens: -1 }),
    { name: "RangeError", message: /"budgetTokens" must be a non-negative number, got "-1"/ },
  );
});
