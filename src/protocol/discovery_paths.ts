/**
 * The items discovery shows, as plain data both the server and the sandboxed runner read, and
 * the resolution of a path as a script writes it (`tools.kv.get`, `kv["get-item"]`, a script
 * name) to one of them, with the nearest paths when nothing matches. One implementation, so
 * in-script `describe()`/`search()` resolve exactly like `gateway describe`/`gateway search`.
 * @module
 */

import { nearestNames } from "./names.ts";

/** A namespace as discovery names it. */
export interface DiscoveryNamespace {
  /** The configured name. */
  name: string;
  /** The identifier under `tools.`. */
  identifier: string;
}

/** What every discovery item has: how it is written, shown and ranked. */
interface DiscoveryItemBase {
  /** As written in a script (`tools.ns.tool`), or the script's name. */
  path: string;
  /** One-line signature. */
  signature: string;
  /** The short description shown beside it. */
  summary: string;
  /** The name search ranks: a tool's original name, a script's name. */
  name: string;
  /** Parameter names, for ranking. */
  paramNames: string[];
  /** The whole description, for ranking. */
  description: string;
}

/** A tool as discovery shows it. */
export interface DiscoveryToolItem extends DiscoveryItemBase {
  kind: "tool";
  namespace: DiscoveryNamespace;
  /** The tool's identifier under `tools.<ns>.`. */
  identifier: string;
  /** What a call needs to be allowed and whether the configuration provides it, in one line. */
  security?: string;
}

/** A named script as discovery shows it. */
export interface DiscoveryScriptItem extends DiscoveryItemBase {
  kind: "script";
  /** `@example` lines, for ranking. */
  examples: string[];
}

/** A tool or a named script. */
export type DiscoveryItem = DiscoveryToolItem | DiscoveryScriptItem;

/** What a path resolves to: an item, or a whole namespace (`tools.kv`, `kv`). */
export type ResolvedItem<T extends DiscoveryItem, N extends DiscoveryNamespace> =
  | T
  | { kind: "namespace"; namespace: N };

/**
 * Thrown by `describe` for a path that names nothing; callers catch it to answer with the
 * nearest names instead of a generic failure.
 */
export class UnknownPathError extends Error {
  /** The path as given. */
  readonly path: string;
  /** Nearest known paths, nearest first; may be empty. */
  readonly nearest: string[];
  constructor(path: string, nearest: string[]) {
    super(
      `Cannot describe "${path}": no such tool, namespace or script` +
        (nearest.length > 0
          ? ` (did you mean ${nearest.map((name) => `"${name}"`).join(", ")}?)`
          : '; search("words") lists what exists'),
    );
    this.name = "UnknownPathError";
    this.path = path;
    this.nearest = nearest;
  }
}

/**
 * Splits a path as a script writes it into names: `tools.kv["get-item"]` →
 * `["tools", "kv", "get-item"]`. Returns null for text that is not a path (spaces, bad quotes).
 *
 * @example
 * ```ts
 * import { splitPath } from "./discovery_paths.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(splitPath('tools.kv["get-item"]'), ["tools", "kv", "get-item"]);
 * ```
 */
export function splitPath(path: string): string[] | null {
  const segments: string[] = [];
  const pattern = /\.?([^.[\]\s"']+)|\[\s*"((?:[^"\\]|\\.)*)"\s*\]|\[\s*'((?:[^'\\]|\\.)*)'\s*\]/y;
  let pos = 0;
  const text = path.trim();
  while (pos < text.length) {
    pattern.lastIndex = pos;
    const match = pattern.exec(text);
    if (match === null) return null;
    if (match[1] !== undefined && pos > 0 && text[pos] !== ".") return null;
    const quoted = match[2] ?? match[3];
    segments.push(quoted === undefined ? match[1]! : quoted.replace(/\\(.)/g, "$1"));
    pos = pattern.lastIndex;
  }
  return segments.length === 0 ? null : segments;
}

/**
 * Lookup of discovery items by any path a script or a person would write. Generic so the
 * server resolves to its richer entries and the runner to the plain items it received.
 */
export class PathIndex<T extends DiscoveryItem, N extends DiscoveryNamespace> {
  /** Namespaces in the order given (by name). */
  readonly namespaces: readonly N[];
  /** Every item, in the order given. */
  readonly items: readonly T[];
  #namespaceByName = new Map<string, N>();
  #toolByKey = new Map<N, Map<string, T>>();
  #scriptByName = new Map<string, T>();

  /** `namespaces` sorted by name; `items` tools (by namespace) then scripts, in path order. */
  constructor(namespaces: readonly N[], items: readonly T[]) {
    this.namespaces = namespaces;
    this.items = items;
    const byIdentifier = new Map<string, N>();
    for (const ns of namespaces) {
      this.#namespaceByName.set(ns.identifier, ns);
      this.#namespaceByName.set(ns.name, ns);
      byIdentifier.set(ns.identifier, ns);
      this.#toolByKey.set(ns, new Map());
    }
    for (const item of items) {
      if (item.kind === "script") {
        this.#scriptByName.set(item.name, item);
        continue;
      }
      const ns = byIdentifier.get(item.namespace.identifier);
      const byKey = ns === undefined ? undefined : this.#toolByKey.get(ns);
      if (byKey === undefined) continue;
      byKey.set(item.identifier, item);
      if (!byKey.has(item.name)) byKey.set(item.name, item);
    }
  }

  /** Finds a namespace by its name or identifier. */
  namespace(name: string): N | undefined {
    return this.#namespaceByName.get(name);
  }

  /**
   * Resolves a path: `tools.kv.get`, `kv.get`, `tools.kv["get-item"]`, `tools["my-ns"].get`,
   * `tools.kv`, `kv`, a script name (with or without `.ts`). Undefined when nothing matches.
   */
  resolve(path: string): ResolvedItem<T, N> | undefined {
    const trimmed = path.trim();
    const script = this.#scriptByName.get(trimmed) ??
      this.#scriptByName.get(trimmed.replace(/\.ts$/, ""));
    if (script !== undefined) return script;
    const segments = splitPath(trimmed);
    if (segments === null) return undefined;
    const rest = segments[0] === "tools" && segments.length > 1 ? segments.slice(1) : segments;
    if (rest.length === 1) {
      const ns = this.namespace(rest[0]!);
      return ns === undefined ? undefined : { kind: "namespace", namespace: ns };
    }
    // Dotted names are tried at every split: `a.b.c` may be namespace `a.b`, tool `c`.
    for (let split = 1; split < rest.length; split++) {
      const ns = this.namespace(rest.slice(0, split).join("."));
      const tool = ns && this.#toolByKey.get(ns)?.get(rest.slice(split).join("."));
      if (tool !== undefined) return tool;
    }
    return undefined;
  }

  /** Every path worth suggesting for a mistyped one: namespaces, then item paths. */
  suggestions(): string[] {
    return [
      ...this.namespaces.map((ns) => `tools.${ns.identifier}`),
      ...this.items.map((item) => item.path),
    ];
  }

  /** The known paths nearest a path that resolves to nothing, nearest first (at most 5). */
  nearestPaths(path: string): string[] {
    const byKey = new Map<string, string>();
    const offer = (key: string, full: string) => {
      if (!byKey.has(key)) byKey.set(key, full);
    };
    for (const ns of this.namespaces) offer(ns.identifier, `tools.${ns.identifier}`);
    for (const item of this.items) {
      if (item.kind === "tool") {
        offer(`${item.namespace.identifier}.${item.identifier}`, item.path);
        offer(item.identifier, item.path);
        offer(item.name, item.path);
      } else {
        offer(item.path, item.path);
      }
    }
    const target = path.trim().replace(/^tools\./, "");
    const near = nearestNames(target, byKey.keys(), { limit: 10 }).map((key) => byKey.get(key)!);
    return [...new Set(near)].slice(0, 5);
  }
}
