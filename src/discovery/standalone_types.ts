/**
 * `gateway tools types NS[,NS…]` (and `ns.tool`): declarations that stand on their own. The
 * chosen namespaces (or tools) are rendered with the same globals as the full output —
 * `GatewayTool`, `stdin()`, `ToolError` …, the namespaces inside `GatewayNamespaces`, and a
 * `tools` global holding just them — so `deno check` accepts the text alone and a script
 * written against it, as the gateway's own check would.
 * @module
 */

import { declarationsUsedBy, parseDeclarations } from "../namespaces/declaration_index.ts";
import { renderScriptGlobals } from "../namespaces/render_types.ts";
import type { CatalogueNamespace, CatalogueSnapshot } from "../protocol/catalogue.ts";
import { CatalogueEntries } from "./catalogue_entries.ts";

/** A name given to `types` that is neither a namespace nor a tool. */
export class UnknownTypesNameError extends Error {
  /** The name as given. */
  readonly wanted: string;
  constructor(wanted: string, known: readonly string[]) {
    super(
      `Unknown namespace "${wanted}" (known: ${known.join(", ") || "none"}; a tool is ns.tool)`,
    );
    this.name = "UnknownTypesNameError";
    this.wanted = wanted;
  }
}

/**
 * The globals text for some namespaces or tools: each `wanted` is a namespace (name or
 * identifier) or a tool path (`ns.tool`, `tools.ns.tool`); a tool brings only the declarations
 * it uses. Throws {@linkcode UnknownTypesNameError} for a name that is neither.
 *
 * @example
 * ```ts
 * import { standaloneTypes } from "./standalone_types.ts";
 * import { syntheticSnapshot } from "./synthetic_snapshot.ts";
 * import assert from "node:assert/strict";
 * const text = standaloneTypes(syntheticSnapshot(), ["kv", "github.get_issue"]);
 * assert.match(text, /^interface GatewayTool</m);
 * assert.match(text, /^declare const tools: \{/m);
 * assert.match(text, /^  namespace github \{/m);
 * assert.doesNotMatch(text, /namespace calendar/);
 * ```
 */
export function standaloneTypes(snapshot: CatalogueSnapshot, wanted: readonly string[]): string {
  const entries = new CatalogueEntries(snapshot);
  const chosen = new Map<string, { ns: CatalogueNamespace; tools: Set<string> | null }>();
  for (const name of wanted) {
    const ns = entries.namespace(name);
    if (ns !== undefined) {
      chosen.set(ns.name, { ns, tools: null });
      continue;
    }
    const resolved = entries.resolve(name);
    if (resolved?.kind !== "tool") {
      throw new UnknownTypesNameError(name, entries.namespaces.map((n) => n.name));
    }
    const prior = chosen.get(resolved.namespace.name);
    if (prior?.tools === null) continue;
    const tools = prior?.tools ?? new Set<string>();
    tools.add(resolved.tool.originalName);
    chosen.set(resolved.namespace.name, { ns: resolved.namespace, tools });
  }
  const namespaces = [...chosen.values()].map(({ ns, tools }) =>
    tools === null ? ns : narrowed(ns, tools)
  );
  return renderScriptGlobals({ namespaces });
}

/** `ns` with only `tools`, and only the declarations they use. */
function narrowed(ns: CatalogueNamespace, tools: ReadonlySet<string>): CatalogueNamespace {
  const kept = ns.catalogue.tools.filter((tool) => tools.has(tool.originalName));
  const index = parseDeclarations(ns.catalogue.declarations);
  const used = new Set(kept.flatMap((tool) => declarationsUsedBy(tool, index)));
  return {
    ...ns,
    catalogue: {
      ...ns.catalogue,
      tools: kept,
      declarations: [...used].map((entry) => entry.text).join("\n\n"),
    },
  };
}
