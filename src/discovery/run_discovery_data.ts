/**
 * Prepares what in-script `search()`/`describe()` answer from (`DiscoveryData`): the catalogue
 * entries with signatures and descriptions already rendered, so the sandboxed runner needs no
 * renderer. Built once per catalogue change, and only for runs that use those globals.
 * @module
 */

import type { DiscoveryData, DiscoveryDataItem } from "../protocol/discovery_data.ts";
import { declarationsUsedBy, parseDeclarations } from "../namespaces/declaration_index.ts";
import { renderNamespaceTypes } from "../namespaces/render_types.ts";
import type { CatalogueEntries } from "./catalogue_entries.ts";
import { describeScript, outlineTool, toolDescriptionHead } from "./describe.ts";

/**
 * Builds the run's discovery data from a snapshot's entries; `describe` and `search` over it
 * answer what the server's do.
 *
 * @example
 * ```ts
 * import { buildDiscoveryData } from "./run_discovery_data.ts";
 * import { CatalogueEntries } from "./catalogue_entries.ts";
 * import { syntheticSnapshot } from "./synthetic_snapshot.ts";
 * import { DiscoveryReader } from "../protocol/discovery_data.ts";
 * import assert from "node:assert/strict";
 * const data = buildDiscoveryData(new CatalogueEntries(syntheticSnapshot()));
 * const text = new DiscoveryReader(data).describe("tools.kv.get_entry");
 * assert.match(text, /tools\.kv\.get_entry\(args: GetEntryArgs\): Promise<Entry>/);
 * ```
 */
export function buildDiscoveryData(entries: CatalogueEntries): DiscoveryData {
  const declarations = new Map(
    entries.namespaces.map((ns) => [ns.identifier, parseDeclarations(ns.catalogue.declarations)]),
  );
  const namespaces = entries.namespaces.map((ns) => ({
    name: ns.name,
    identifier: ns.identifier,
    types: renderNamespaceTypes(ns),
    declarations: Object.fromEntries(
      [...declarations.get(ns.identifier)!.values()].map((entry) => [entry.name, entry.text]),
    ),
  }));
  const items = entries.entries.map((entry): DiscoveryDataItem => {
    const common = {
      path: entry.path,
      signature: entry.signature,
      summary: entry.summary,
      name: entry.name,
      paramNames: entry.paramNames,
      description: entry.description,
    };
    if (entry.kind === "script") {
      return {
        kind: "script",
        ...common,
        examples: entry.examples,
        describe: describeScript(entry),
      };
    }
    const index = declarations.get(entry.namespace.identifier)!;
    return {
      kind: "tool",
      ...common,
      namespace: { name: entry.namespace.name, identifier: entry.namespace.identifier },
      identifier: entry.identifier,
      describe: toolDescriptionHead(entry),
      uses: declarationsUsedBy(entry.tool, index).map((declaration) => declaration.name),
      outline: outlineTool(entry),
    };
  });
  return { namespaces, items };
}
