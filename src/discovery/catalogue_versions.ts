/**
 * Catalogue versions and what changed between them: a client that read the catalogue at one
 * version asks what changed since (`catalog` with `since`, CLI `--since`, the MCP `catalog`
 * tool) and reads the few lines that differ instead of everything again. A version is a hash
 * of what discovery shows (each tool's and script's path, signature and summary, each
 * namespace's status), so it is the same across restarts while the catalogue is.
 * @module
 */

import type { CatalogueEntries } from "./catalogue_entries.ts";
import { describeStatus } from "../protocol/catalogue.ts";

/** How many versions are remembered for `since`; an older one gets the whole catalogue. */
const KEPT_VERSIONS = 16;

/** What changed between two versions, one line per item as search shows it. */
export interface CatalogueChanges {
  /** The version asked about. */
  since: string;
  /** The version now. */
  version: string;
  /** False when `since` is not remembered: the caller must read the whole catalogue. */
  known: boolean;
  added: string[];
  /** Paths no longer there. */
  removed: string[];
  /** Items whose signature or summary changed, as they are now. */
  changed: string[];
  /** Namespaces whose status changed: `name: old → new`. */
  namespaces: string[];
  /** The changes as a model reads them. */
  text: string;
}

interface VersionState {
  items: Map<string, string>;
  namespaces: Map<string, string>;
}

/** The lines one snapshot's entries show, by path, and each namespace's status. */
function stateOf(entries: CatalogueEntries): VersionState {
  const items = new Map<string, string>();
  for (const entry of entries.entries) {
    const signature = entry.signature.replace(/\bGatewayNamespaces\.[\w$]+\./g, "");
    items.set(entry.path, entry.summary ? `${signature} — ${entry.summary}` : signature);
  }
  const namespaces = new Map(
    entries.namespaces.map((ns) => [ns.name, describeStatus(ns.status)]),
  );
  return { items, namespaces };
}

/** FNV-1a over the text, 52 bits, in base 36: short, and stable across processes. */
function hashText(text: string): string {
  let hash = 0xcbf29ce484222325n;
  const prime = 0x100000001b3n;
  const mask = (1n << 64n) - 1n;
  for (let i = 0; i < text.length; i++) {
    hash = ((hash ^ BigInt(text.charCodeAt(i))) * prime) & mask;
  }
  return (hash >> 12n).toString(36);
}

function versionOf(state: VersionState): string {
  const lines = [
    ...[...state.items].map(([path, line]) => `${path}\t${line}`),
    ...[...state.namespaces].map(([name, status]) => `ns\t${name}\t${status}`),
  ].sort();
  return hashText(lines.join("\n"));
}

/**
 * The versions handed out lately and the state each stood for. Built per server; a version is
 * remembered when a caller is told it ({@linkcode CatalogueVersions.current}).
 *
 * @example
 * ```ts
 * import { CatalogueVersions } from "./catalogue_versions.ts";
 * import { CatalogueEntries } from "./catalogue_entries.ts";
 * import { syntheticSnapshot } from "./synthetic_snapshot.ts";
 * import assert from "node:assert/strict";
 * const versions = new CatalogueVersions();
 * const before = versions.current(new CatalogueEntries(syntheticSnapshot({ namespaces: 2 })));
 * const after = new CatalogueEntries(syntheticSnapshot({ namespaces: 3 }));
 * const changes = versions.changesSince(before, after);
 * assert.equal(changes.known, true);
 * assert.equal(changes.added.length, 8);
 * assert.match(changes.text, /^\+ tools\.sqlite\.get_table\(/m);
 * ```
 */
export class CatalogueVersions {
  readonly #states = new Map<string, VersionState>();
  #last: { entries: CatalogueEntries; version: string } | null = null;

  /** The version of `entries`, remembered so a later `since` can be answered. */
  current(entries: CatalogueEntries): string {
    if (this.#last?.entries === entries) return this.#last.version;
    const state = stateOf(entries);
    const version = versionOf(state);
    this.#states.delete(version);
    this.#states.set(version, state);
    while (this.#states.size > KEPT_VERSIONS) {
      this.#states.delete(this.#states.keys().next().value!);
    }
    this.#last = { entries, version };
    return version;
  }

  /** What changed from `since` to `entries` (and `entries`' version, remembered). */
  changesSince(since: string, entries: CatalogueEntries): CatalogueChanges {
    const version = this.current(entries);
    const before = this.#states.get(since);
    const now = this.#states.get(version)!;
    if (before === undefined) {
      return {
        since,
        version,
        known: false,
        added: [],
        removed: [],
        changed: [],
        namespaces: [],
        text: `Version "${since}" is not one this gateway remembers (it keeps the last ` +
          `${KEPT_VERSIONS}): read the whole catalogue (catalog without since). Now: ${version}.`,
      };
    }
    const added: string[] = [];
    const changed: string[] = [];
    for (const [path, line] of now.items) {
      const old = before.items.get(path);
      if (old === undefined) added.push(line);
      else if (old !== line) changed.push(line);
    }
    const removed = [...before.items.keys()].filter((path) => !now.items.has(path));
    const namespaces: string[] = [];
    for (const [name, status] of now.namespaces) {
      const old = before.namespaces.get(name);
      if (old !== status) namespaces.push(`${name}: ${old ?? "(new)"} → ${status}`);
    }
    for (const name of before.namespaces.keys()) {
      if (!now.namespaces.has(name)) namespaces.push(`${name}: removed`);
    }
    const lines = [
      ...namespaces.map((line) => `namespace ${line}`),
      ...added.map((line) => `+ ${line}`),
      ...changed.map((line) => `~ ${line}`),
      ...removed.map((path) => `- ${path}`),
    ];
    const text = lines.length === 0
      ? `No changes since ${since}.`
      : `Changes since ${since} (now ${version}):\n${lines.join("\n")}`;
    return { since, version, known: true, added, removed, changed, namespaces, text };
  }
}
