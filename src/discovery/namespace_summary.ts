/**
 * One line per namespace for the guides: its kind, status, tool count, and what its tools are
 * about (their names when few, else the commonest name groups: `issues`, `repos` …), so a model
 * knows where to search without reading any tool list.
 * @module
 */

import { type CatalogueNamespace, describeStatus, exposedTools } from "../protocol/catalogue.ts";

/** Most tool names a summary lists; a namespace with more is summarised by name groups. */
const MAX_NAMES = 8;
/** Most name groups a summary lists. */
const MAX_GROUPS = 8;

function kindWord(ns: CatalogueNamespace): string {
  return { local: "local", mcp: "MCP", openapi: "OpenAPI", graphql: "GraphQL" }[ns.kind];
}

/** The words of a tool name: `issues_create` → issues, create; `createEntities` → create, entities. */
function nameWords(name: string): string[] {
  return name.split(/[_\-.\/]|(?<=[a-z0-9])(?=[A-Z])/).filter((w) => w !== "").map((w) =>
    w.toLowerCase()
  );
}

/**
 * The name groups of a namespace's tools: by their first word or by their last, whichever
 * makes fewer groups (the nouns: `issues_create` → issues, `read_file` → file), by count.
 */
function nameGroups(identifiers: readonly string[]): Array<[string, number]> {
  const count = (pick: (words: string[]) => string) => {
    const counts = new Map<string, number>();
    for (const identifier of identifiers) {
      const group = pick(nameWords(identifier)).replace(/(ie)?s$/, (_m, ie) => (ie ? "y" : ""));
      counts.set(group, (counts.get(group) ?? 0) + 1);
    }
    return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  };
  const first = count((words) => words[0] ?? "");
  const last = count((words) => words.at(-1) ?? "");
  return last.length < first.length ? last : first;
}

/**
 * The namespace in one line: `` `tools.github` (OpenAPI, 1223 tools): actions, repos, … ``.
 *
 * @example
 * ```ts
 * import { summariseNamespace } from "./namespace_summary.ts";
 * import { syntheticSnapshot } from "./synthetic_snapshot.ts";
 * import assert from "node:assert/strict";
 * const [ns] = syntheticSnapshot({ namespaces: 1 }).namespaces;
 * assert.match(summariseNamespace(ns!), /^`tools\.github` \(MCP, 8 tools\): /);
 * ```
 */
export function summariseNamespace(ns: CatalogueNamespace): string {
  const tools = exposedTools(ns);
  const status = ns.status.state === "ready" ? "" : `, ${describeStatus(ns.status)}`;
  const head = `\`tools.${ns.identifier}\` (${kindWord(ns)}, ${tools.length} tool${
    tools.length === 1 ? "" : "s"
  }${status})`;
  const about = toolTopics(ns);
  return about === "" ? head : `${head}: ${about}`;
}

/**
 * What a namespace's tools are about: their names when few, else the commonest name groups
 * (`issues, repos, …`); empty for a namespace with no tools.
 */
export function toolTopics(ns: CatalogueNamespace): string {
  const tools = exposedTools(ns);
  if (tools.length <= MAX_NAMES) return tools.map((t) => t.identifier).join(", ");
  const groups = nameGroups(tools.map((t) => t.identifier));
  const shown = groups.slice(0, MAX_GROUPS).map(([group]) => group);
  return `${shown.join(", ")}${groups.length > shown.length ? ", …" : ""}`;
}
