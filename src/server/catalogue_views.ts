/**
 * The catalogue as discovery sees it — the snapshot, its search index, and the JSON that
 * in-script `search()`/`describe()` answer from — each built once per catalogue change, not
 * per request or per run.
 * @module
 */

import type { CatalogueSnapshot } from "../discovery/catalogue_snapshot.ts";
import { SearchIndex } from "../discovery/search.ts";
import type { NamedScript } from "../exec/named_scripts.ts";
import type { NamespaceRegistry } from "../namespaces/namespace_registry.ts";
import type { DiscoveryData } from "../protocol/channel_messages.ts";

/** Views of the current catalogue, cached until {@linkcode CatalogueViews.invalidate}. */
export class CatalogueViews {
  readonly #registry: NamespaceRegistry;
  readonly #scripts: () => NamedScript[];
  #snapshot: CatalogueSnapshot | null = null;
  #searchIndex: SearchIndex | null = null;
  #discovery: { from: CatalogueSnapshot; data: DiscoveryData } | null = null;

  constructor(registry: NamespaceRegistry, scripts: () => NamedScript[]) {
    this.#registry = registry;
    this.#scripts = scripts;
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
    this.#snapshot ??= { namespaces: this.#registry.typed(), scripts: this.#scripts() };
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

  /** What in-script `search()`/`describe()` answer from: the snapshot, as JSON. */
  discoveryData(): DiscoveryData {
    const snapshot = this.snapshot();
    if (this.#discovery?.from === snapshot) return this.#discovery.data;
    const data: DiscoveryData = {
      snapshot: {
        namespaces: snapshot.namespaces.map((ns) => ({
          ...ns,
          toolIdentifiers: Object.fromEntries(ns.toolIdentifiers as Map<string, string>),
        })),
        scripts: snapshot.scripts.map(({ name, description, examples, params }) => ({
          name,
          description,
          examples,
          params,
        })),
      },
    };
    this.#discovery = { from: snapshot, data };
    return data;
  }
}
