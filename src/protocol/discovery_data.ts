/**
 * What in-script `search()` and `describe()` answer from, without a round trip: discovery
 * items the gateway prepared from its catalogue (signatures and descriptions already
 * rendered), sent with the run. {@linkcode DiscoveryReader} answers from them with the same
 * resolution and ranking as the server, so the sandboxed runner loads no renderer.
 * @module
 */

import {
  type DiscoveryItem,
  type DiscoveryNamespace,
  PathIndex,
  UnknownPathError,
} from "./discovery_paths.ts";
import { RankedIndex, type SearchAnswer, type SearchOptions } from "./discovery_search.ts";
import {
  composeCompactDescription,
  type OutlineOptions,
  type OutlineTool,
} from "./type_outline.ts";

/** A namespace as the run receives it: its types, and its declarations by name. */
export interface DiscoveryDataNamespace extends DiscoveryNamespace {
  /** What `describe("tools.ns")` answers: the namespace's TypeScript. */
  types: string;
  /** Declaration name → its text with JSDoc, for the "types used" part of a tool's description. */
  declarations: Record<string, string>;
}

/** An item as the run receives it, with what `describe()` answers for it. */
export type DiscoveryDataItem = DiscoveryItem & {
  /** A script's whole description; a tool's JSDoc and signatures, without the types it uses. */
  describe: string;
  /** Tools: names of the namespace declarations the tool's types use, in declaration order. */
  uses?: string[];
  /** Tools: what the compact description (the default of `describe()`) is composed from. */
  outline?: OutlineTool;
};

/** How much `describe()` shows of a tool; see the server's `describe`. */
export interface DescribeReadOptions extends OutlineOptions {
  /** Everything: the whole description, `.raw`, and every type with its JSDoc. */
  full?: boolean;
}

/** The discovery part of a run message: plain JSON. */
export interface DiscoveryData {
  /** Sorted by name. */
  namespaces: DiscoveryDataNamespace[];
  /** Tools (by namespace, then path), then scripts by name. */
  items: DiscoveryDataItem[];
}

/**
 * Completes a tool's description with the declarations it uses. The server's `describe` and
 * the in-script one both end here, so they print the same text.
 */
export function composeToolDescription(
  head: string,
  namespaceIdentifier: string,
  used: readonly string[],
): string {
  const lines = [head];
  if (used.length > 0) {
    lines.push(
      "",
      `// Types used, declared in namespace ${namespaceIdentifier} (GatewayNamespaces.${namespaceIdentifier}):`,
      ...used,
    );
  }
  return `${lines.join("\n")}\n`;
}

/**
 * Answers `search()` and `describe()` inside a script from the run's {@linkcode DiscoveryData};
 * indexes are built on first use.
 */
export class DiscoveryReader {
  readonly #data: DiscoveryData;
  #paths: PathIndex<DiscoveryDataItem, DiscoveryDataNamespace> | null = null;
  #ranked: RankedIndex<DiscoveryDataItem, DiscoveryDataNamespace> | null = null;

  constructor(data: DiscoveryData) {
    this.#data = data;
  }

  #pathIndex(): PathIndex<DiscoveryDataItem, DiscoveryDataNamespace> {
    this.#paths ??= new PathIndex(this.#data.namespaces, this.#data.items);
    return this.#paths;
  }

  /** Ranks tools and scripts for a query, exactly as the server's search does. */
  search(query: string, options: SearchOptions = {}): SearchAnswer {
    this.#ranked ??= new RankedIndex(this.#pathIndex());
    return this.#ranked.search(query, options);
  }

  /**
   * Describes a tool (compactly unless `full`), a namespace or a script; throws
   * {@linkcode UnknownPathError} when unknown.
   */
  describe(path: string, options: DescribeReadOptions = {}): string {
    const paths = this.#pathIndex();
    const resolved = paths.resolve(path);
    if (resolved === undefined) throw new UnknownPathError(path, paths.nearestPaths(path));
    if (resolved.kind === "namespace") return resolved.namespace.types;
    if (resolved.kind === "script") return resolved.describe;
    const ns = paths.namespace(resolved.namespace.identifier);
    const declarations = ns?.declarations ?? {};
    if (!options.full && resolved.outline !== undefined) {
      return composeCompactDescription(
        resolved.outline,
        declarations,
        options.depth === undefined ? {} : { depth: options.depth },
      );
    }
    const used = (resolved.uses ?? []).flatMap((name) =>
      Object.hasOwn(declarations, name) ? [declarations[name]!] : []
    );
    return composeToolDescription(resolved.describe, resolved.namespace.identifier, used);
  }
}
