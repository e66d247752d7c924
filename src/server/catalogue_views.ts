/**
 * The catalogue as discovery sees it — the namespaces and the root's named scripts, the
 * snapshot, its search index, and the JSON that in-script `search()`/`describe()` answer
 * from — each built once per catalogue change, not per request or per run.
 * @module
 */

import type { CatalogueSnapshot } from "../protocol/catalogue.ts";
import { SearchIndex } from "../discovery/search.ts";
import { buildDiscoveryData } from "../discovery/run_discovery_data.ts";
import { listNamedScripts, type NamedScript } from "../exec/named_scripts.ts";
import type { Logger } from "../logger.ts";
import type { NamespaceRegistry } from "../namespaces/namespace_registry.ts";
import type { DiscoveryData } from "../protocol/channel_messages.ts";
import type { NamespaceSummary } from "../protocol/wire_views.ts";
import type { ScriptUsage } from "../exec/script_analysis.ts";

/**
 * The live catalogue as RPC methods and the script runner read it: these views, and the wait
 * for namespaces still starting, which only the gateway core can do (it owns their start-up
 * and the checker's types). The core implements it.
 */
export interface LiveCatalogue {
  /**
   * Resolves (bounded) once the namespaces `usage` needs (all, without it) are started and the
   * checker holds their types.
   */
  catalogueReady(usage?: ScriptUsage): Promise<void>;
  /** The catalogue as discovery and the type renderer see it. */
  snapshot(): CatalogueSnapshot;
  /** The search index of the current snapshot. */
  searchIndex(): SearchIndex;
  /** What in-script `search()`/`describe()` answer from. */
  discoveryData(): DiscoveryData;
  /** Named scripts of the root, as last listed. */
  scripts(): NamedScript[];
  /** Namespaces with status. */
  namespaceList(): NamespaceSummary[];
}

/** Views of the current catalogue, cached until {@linkcode CatalogueViews.invalidate}. */
export class CatalogueViews {
  readonly #registry: NamespaceRegistry;
  readonly #scriptsDir: string;
  readonly #log: Logger;
  #scripts: NamedScript[] = [];
  #snapshot: CatalogueSnapshot | null = null;
  #searchIndex: SearchIndex | null = null;
  #discovery: { from: CatalogueSnapshot; data: DiscoveryData } | null = null;

  constructor(registry: NamespaceRegistry, scriptsDir: string, log: Logger) {
    this.#registry = registry;
    this.#scriptsDir = scriptsDir;
    this.#log = log;
  }

  /** Named scripts of the root, as last listed. */
  get scripts(): NamedScript[] {
    return this.#scripts;
  }

  /** Lists the named scripts again; a directory that cannot be read keeps the last list. */
  async refreshScripts(): Promise<void> {
    try {
      this.#scripts = await listNamedScripts(this.#scriptsDir);
    } catch (error) {
      this.#log.warn("cannot list named scripts", { error: String(error) });
    }
    this.invalidate();
  }

  /** Whether the snapshot must be rebuilt (nothing was built since the last change). */
  get stale(): boolean {
    return this.#snapshot === null;
  }

  /** Drops the cached views: the namespaces or the named scripts changed. */
  invalidate(): void {
    this.#snapshot = null;
  }

  /** The catalogue as discovery and the type renderer see it; cached until it changes. */
  snapshot(): CatalogueSnapshot {
    this.#snapshot ??= { namespaces: this.#registry.typed(), scripts: this.#scripts };
    return this.#snapshot;
  }

  /** The search index of the current snapshot, built once per catalogue change. */
  searchIndex(): SearchIndex {
    const snapshot = this.snapshot();
    if (!this.#searchIndex || this.#searchIndex.entries.snapshot !== snapshot) {
      this.#searchIndex = new SearchIndex(snapshot);
    }
    return this.#searchIndex;
  }

  /** What in-script `search()`/`describe()` answer from: the catalogue entries, rendered. */
  discoveryData(): DiscoveryData {
    const snapshot = this.snapshot();
    if (this.#discovery?.from === snapshot) return this.#discovery.data;
    const data = buildDiscoveryData(this.searchIndex().entries);
    this.#discovery = { from: snapshot, data };
    return data;
  }

  /** Namespaces with status, for `gateway tools` and `/health`. */
  namespaceList(): NamespaceSummary[] {
    return this.#registry.typed().map((ns) => ({
      name: ns.name,
      identifier: ns.identifier,
      kind: ns.kind,
      status: ns.status.state,
      ...(ns.status.state === "failed" ? { reason: ns.status.reason } : {}),
      tools: ns.catalogue.tools.length,
      ...(ns.catalogue.prompts?.length ? { prompts: ns.catalogue.prompts } : {}),
      ...(ns.catalogue.warnings.length ? { notes: ns.catalogue.warnings } : {}),
    }));
  }
}
