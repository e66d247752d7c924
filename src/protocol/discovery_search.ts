/**
 * Ranked search over discovery items: an index built once per catalogue snapshot,
 * field-weighted scoring, exact-path look-up and paging. The server's `search` and the
 * in-script `search()` both rank with this one implementation.
 * @module
 */

import { compareText } from "./catalogue.ts";
import type { DiscoveryItem, DiscoveryNamespace, PathIndex } from "./discovery_paths.ts";
import { nearestNames } from "./names.ts";
import { InvalidArgumentError } from "./invalid_argument_error.ts";

/** Options of a search: the same over CLI, RPC, HTTP and the script global. */
export interface SearchOptions {
  /** Only this namespace (name or identifier); scripts are left out. */
  namespace?: string;
  /** Results per page. @default 10 */
  limit?: number;
  /** Results to skip: the `next` of the previous page. @default 0 */
  offset?: number;
}

/** One hit. */
export interface SearchHit {
  /** As written in a script (`tools.ns.tool`), or the script's name. */
  path: string;
  kind: "tool" | "script";
  /** One-line signature. */
  signature: string;
  /** First line of the description. */
  description: string;
  /** A tool's security needs, in one line, when it has any (an HTTP API's operation). */
  security?: string;
}

/** One page of hits, with the total and the offset of the next page (null on the last). */
export interface SearchAnswer {
  results: SearchHit[];
  total: number;
  next: number | null;
}

/**
 * A page of hits as a model or a person reads it: one line each (the signature, with the
 * namespace's own type names unqualified, then the summary), and a last line with the count and
 * the next offset.
 *
 * @example
 * ```ts
 * import { searchLines } from "./discovery_search.ts";
 * import assert from "node:assert/strict";
 * const text = searchLines({
 *   results: [{
 *     path: "tools.kv.get",
 *     kind: "tool",
 *     signature: "tools.kv.get(args: GatewayNamespaces.kv.GetArgs): Promise<unknown>",
 *     description: "Reads one key.",
 *   }],
 *   total: 3,
 *   next: 1,
 * });
 * assert.equal(text, "tools.kv.get(args: GetArgs): Promise<unknown> — Reads one key.\n1 of 3; next: offset 1");
 * ```
 */
export function searchLines(answer: SearchAnswer): string {
  const lines = answer.results.map((hit) => {
    const signature = hit.signature.replace(/\bGatewayNamespaces\.[\w$]+\./g, "");
    return hit.description ? `${signature} — ${hit.description}` : signature;
  });
  lines.push(
    `${answer.results.length} of ${answer.total}${
      answer.next === null ? "" : `; next: offset ${answer.next}`
    }`,
  );
  return lines.join("\n");
}

/** How much a query word matching each field is worth. */
const WEIGHT = {
  nameTerm: 10,
  nameSubstring: 6,
  namespace: 4,
  param: 4,
  description: 3,
  example: 2,
  /** Multiplier for a query word that is only a prefix of an indexed word. */
  prefix: 0.5,
  /** Added when the whole query, folded, is the item's name. */
  wholeName: 30,
  /** Added when the item's name contains the whole multi-word query, folded. */
  nameContainsQuery: 8,
} as const;

const STOP_WORDS = new Set([
  "a",
  "an",
  "and",
  "are",
  "by",
  "for",
  "from",
  "in",
  "is",
  "it",
  "of",
  "on",
  "or",
  "the",
  "to",
  "with",
]); // deno-fmt-ignore

/**
 * Reduces simple English plurals to a common stem, so `issues` finds `issue`, `entries` finds
 * `entry` and `matches` finds `match`. Stems are only compared, never shown.
 */
export function stem(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  let out = word;
  if (out.length > 3 && out.endsWith("s") && !/(?:ss|us|is)$/.test(out)) out = out.slice(0, -1);
  if (out.length > 3 && out.endsWith("e")) out = out.slice(0, -1);
  return out;
}

/**
 * Splits text into lower-case, stemmed words, folding case, `-`, `_` and camelCase:
 * `getHTTPItems` → `["get", "http", "item"]`.
 */
export function searchTerms(text: string): string[] {
  return text
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, "$1 $2")
    .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, "$1 $2")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== "")
    .map(stem);
}

function foldName(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");
}

interface IndexedItem<T> {
  entry: T;
  /** Namespace identifier for tools; null for scripts. */
  namespace: string | null;
  /** The name, lower case with separators removed, for substring matches. */
  folded: string;
  /** Same, stemmed word by word. */
  foldedStem: string;
}

interface Posting {
  items: number[];
  weights: number[];
}

function validateOptions(options: SearchOptions): { limit: number; offset: number } {
  const limit = options.limit ?? 10;
  const offset = options.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 1) {
    throw new InvalidArgumentError(
      `Cannot search: "limit" must be a positive integer, got "${limit}"`,
    );
  }
  if (!Number.isInteger(offset) || offset < 0) {
    throw new InvalidArgumentError(
      `Cannot search: "offset" must be a non-negative integer, got "${offset}"`,
    );
  }
  return { limit, offset };
}

function toHit(entry: DiscoveryItem): SearchHit {
  return {
    path: entry.path,
    kind: entry.kind,
    signature: entry.signature,
    description: entry.summary,
    ...(entry.kind === "tool" && entry.security !== undefined ? { security: entry.security } : {}),
  };
}

/**
 * The search structures of one snapshot: an inverted index of words per field, a sorted
 * vocabulary for prefix matches and folded names for substring matches. Build it once when the
 * snapshot changes and reuse it; a query over 2,000 tools then takes well under 5 ms.
 *
 * Generic over the items, so the server ranks its entries and the runner the plain items it
 * received, with one implementation.
 */
export class RankedIndex<T extends DiscoveryItem, N extends DiscoveryNamespace> {
  /** The items and path resolution this index was built on. */
  readonly paths: PathIndex<T, N>;
  #items: IndexedItem<T>[] = [];
  #postings = new Map<string, Posting>();
  #vocabulary: string[];

  constructor(paths: PathIndex<T, N>) {
    this.paths = paths;
    const weights = new Map<string, Map<number, number>>();
    const add = (term: string, item: number, weight: number) => {
      let byItem = weights.get(term);
      if (byItem === undefined) weights.set(term, byItem = new Map());
      byItem.set(item, Math.max(byItem.get(item) ?? 0, weight));
    };
    for (const entry of paths.items) {
      const item = this.#items.length;
      const name = entry.name;
      const nameTerms = searchTerms(name);
      this.#items.push({
        entry,
        namespace: entry.kind === "tool" ? entry.namespace.identifier : null,
        folded: foldName(name),
        foldedStem: nameTerms.join(""),
      });
      for (const term of nameTerms) add(term, item, WEIGHT.nameTerm);
      if (entry.kind === "tool") {
        for (const term of searchTerms(`${entry.namespace.name} ${entry.namespace.identifier}`)) {
          add(term, item, WEIGHT.namespace);
        }
        for (const term of searchTerms(entry.paramNames.join(" "))) {
          add(term, item, WEIGHT.param);
        }
        for (const term of searchTerms(entry.description)) {
          add(term, item, WEIGHT.description);
        }
      } else {
        for (const term of searchTerms(entry.paramNames.join(" "))) {
          add(term, item, WEIGHT.param);
        }
        for (const term of searchTerms(entry.description)) {
          add(term, item, WEIGHT.description);
        }
        for (const term of searchTerms(entry.examples.join(" "))) {
          add(term, item, WEIGHT.example);
        }
      }
    }
    for (const [term, byItem] of weights) {
      this.#postings.set(term, { items: [...byItem.keys()], weights: [...byItem.values()] });
    }
    this.#vocabulary = [...weights.keys()].sort(compareText);
  }

  /**
   * Ranks tools and scripts for a query. An exact path (`tools.kv.get`, `kv.get`, a script
   * name) answers that item alone; an empty query lists the namespace (or everything) in path
   * order. Ties are broken by path, so the same query always pages the same way.
   */
  search(query: string, options: SearchOptions = {}): SearchAnswer {
    const { limit, offset } = validateOptions(options);
    let namespace: string | null = null;
    if (options.namespace !== undefined) {
      const ns = this.paths.namespace(options.namespace);
      if (ns === undefined) {
        const near = nearestNames(options.namespace, this.paths.namespaces.map((n) => n.name));
        throw new InvalidArgumentError(
          `Cannot search namespace "${options.namespace}": no such namespace` +
            (near.length > 0 ? ` (did you mean ${near.map((n) => `"${n}"`).join(", ")}?)` : ""),
        );
      }
      namespace = ns.identifier;
    }
    const ranked = this.#rank(query, namespace);
    const page = ranked.slice(offset, offset + limit).map(toHit);
    const next = offset + limit < ranked.length ? offset + limit : null;
    return { results: page, total: ranked.length, next };
  }

  #inScope(item: IndexedItem<T>, namespace: string | null): boolean {
    return namespace === null || item.namespace === namespace;
  }

  #rank(query: string, namespace: string | null): T[] {
    const trimmed = query.trim();
    const items = this.#items;
    if (trimmed === "") {
      return items.filter((item) => this.#inScope(item, namespace))
        .map((item) => item.entry)
        .sort((a, b) => compareText(a.path, b.path));
    }
    const resolved = this.paths.resolve(trimmed);
    if (resolved !== undefined && resolved.kind !== "namespace") {
      const ns = resolved.kind === "tool" ? resolved.namespace.identifier : null;
      if (namespace === null || ns === namespace) return [resolved];
    }
    const all = [...new Set(searchTerms(trimmed))];
    const meaningful = all.filter((term) => !STOP_WORDS.has(term));
    const terms = meaningful.length > 0 ? meaningful : all;
    if (terms.length === 0) return [];
    const scores = new Float64Array(items.length);
    const matched = new Uint16Array(items.length);
    const best = new Float64Array(items.length);
    for (const term of terms) {
      best.fill(0);
      this.#scoreTerm(term, best);
      for (let i = 0; i < items.length; i++) {
        if (best[i]! > 0) {
          scores[i] = scores[i]! + best[i]!;
          matched[i] = matched[i]! + 1;
        }
      }
    }
    const foldedQuery = foldName(trimmed);
    const stemmedQuery = terms.join("");
    const hits: Array<{ entry: T; score: number }> = [];
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      if (matched[i] === 0 || !this.#inScope(item, namespace)) continue;
      let score = scores[i]! * (matched[i]! / terms.length);
      if (item.folded === foldedQuery || item.foldedStem === stemmedQuery) {
        score += WEIGHT.wholeName;
      } else if (terms.length > 1 && item.foldedStem.includes(stemmedQuery)) {
        score += WEIGHT.nameContainsQuery;
      }
      hits.push({ entry: item.entry, score });
    }
    hits.sort((a, b) => b.score - a.score || compareText(a.entry.path, b.entry.path));
    return hits.map((hit) => hit.entry);
  }

  /** Writes into `best` the highest weight `term` earns in each item. */
  #scoreTerm(term: string, best: Float64Array): void {
    const exact = this.#postings.get(term);
    if (exact !== undefined) {
      for (let k = 0; k < exact.items.length; k++) {
        const item = exact.items[k]!;
        best[item] = Math.max(best[item]!, exact.weights[k]!);
      }
    }
    if (term.length >= 3) {
      const vocabulary = this.#vocabulary;
      let low = 0;
      let high = vocabulary.length;
      while (low < high) {
        const mid = (low + high) >>> 1;
        if (vocabulary[mid]! < term) low = mid + 1;
        else high = mid;
      }
      for (let v = low; v < vocabulary.length && vocabulary[v]!.startsWith(term); v++) {
        if (vocabulary[v] === term) continue;
        const posting = this.#postings.get(vocabulary[v]!)!;
        for (let k = 0; k < posting.items.length; k++) {
          const item = posting.items[k]!;
          best[item] = Math.max(best[item]!, posting.weights[k]! * WEIGHT.prefix);
        }
      }
    }
    if (term.length >= 2) {
      const items = this.#items;
      for (let i = 0; i < items.length; i++) {
        if (best[i]! < WEIGHT.nameSubstring && items[i]!.foldedStem.includes(term)) {
          best[i] = WEIGHT.nameSubstring;
        }
      }
    }
  }
}
