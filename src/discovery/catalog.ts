/**
 * The token-budgeted catalogue (`gateway catalog`): every namespace with its count and
 * status, then signatures added round-robin, cheapest first, until the budget is spent.
 * @module
 */

import { CatalogueEntries, type ToolEntry } from "./catalogue_entries.ts";
import {
  type CatalogueNamespace,
  type CatalogueSnapshot,
  compareText,
  describeStatus,
  type NamespaceKind,
  type NamespaceStatus,
} from "../protocol/catalogue.ts";
import { InvalidArgumentError } from "../protocol/invalid_argument_error.ts";
import { countOf } from "../protocol/count_of.ts";

/** Characters counted as one token when spending the budget. */
export const CHARS_PER_TOKEN = 4;

/** Options of {@linkcode buildCatalog}. */
export interface CatalogOptions {
  /** Size of the text in tokens (4 characters each). @default 2000 */
  budgetTokens?: number;
  /** A last line (the catalogue's version), counted in the budget. */
  footer?: string;
}

/** What the catalogue says about one namespace. */
export interface CatalogNamespace {
  name: string;
  identifier: string;
  kind: NamespaceKind;
  status: NamespaceStatus;
  /** Tools the namespace exposes. */
  count: number;
  /** Tools whose signature the text shows. */
  shown: number;
}

/** The catalogue text and the numbers behind its COMPLETE/PARTIAL header. */
export interface Catalog {
  text: string;
  /** True when every tool's signature is in the text. */
  complete: boolean;
  shown: number;
  total: number;
  namespaces: CatalogNamespace[];
}

interface Candidate {
  entry: ToolEntry;
  /** The lines this tool adds: a one-line JSDoc (when it has a description) and its signature. */
  text: string;
}

const SUMMARY_MAX_CHARS = 120;

function candidateText(entry: ToolEntry): string {
  let summary = entry.summary;
  if (summary.length > SUMMARY_MAX_CHARS) summary = `${summary.slice(0, SUMMARY_MAX_CHARS - 1)}…`;
  summary = summary.replaceAll("*/", "*\\/");
  return `${summary === "" ? "" : `/** ${summary} */\n`}${entry.signature}\n`;
}

function coverage(shown: number, count: number, status: NamespaceStatus): string {
  if (count === 0) return status.state === "starting" ? "tools not known yet" : "no tools";
  return shown === count ? "COMPLETE" : `PARTIAL, ${shown} of ${count} shown`;
}

function statusText(status: NamespaceStatus): string {
  const text = describeStatus(status).split(/\r?\n/)[0] ?? "";
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

function sectionHeading(ns: CatalogueNamespace, counts: { shown: number; count: number }): string {
  return `\n## ${ns.identifier}: ${counts.shown} of ${countOf(counts.count, "tool")}\n`;
}

function renderHeader(
  namespaces: readonly CatalogNamespace[],
  context: { scriptCount: number; budgetTokens: number },
): string {
  const { scriptCount, budgetTokens } = context;
  const shown = namespaces.reduce((sum, ns) => sum + ns.shown, 0);
  const total = namespaces.reduce((sum, ns) => sum + ns.count, 0);
  const overall = shown === total
    ? `COMPLETE, all ${countOf(total, "tool")} shown`
    : `PARTIAL, ${shown} of ${countOf(total, "tool")} shown`;
  const rows = namespaces.map((ns) => {
    const name = ns.identifier === ns.name ? ns.identifier : `${ns.identifier} ("${ns.name}")`;
    const tools = `${ns.count} tool${ns.count === 1 ? "" : "s"}`;
    return `- ${name}: ${tools}, ${coverage(ns.shown, ns.count, ns.status)}; ${ns.kind}, ${
      statusText(ns.status)
    }`;
  });
  // COMPLETE covers the tools known now; a namespace still starting may add more.
  const starting = namespaces.filter((ns) => ns.status.state === "starting");
  const lines = [
    `Tool catalogue: ${overall} (budget ${budgetTokens} tokens).`,
    ...(starting.length === 0 ? [] : [
      `Still starting: ${starting.map((ns) => ns.identifier).join(", ")} (${
        starting.length === 1 ? "its tools are" : "their tools are"
      } not all listed yet; run the catalogue again shortly).`,
    ]),
    `Namespaces (${namespaces.length}; call as tools.<namespace>.<tool>(args)):`,
    ...rows,
    `Named scripts: ${scriptCount} (gateway run NAME; search finds them).`,
    shown === total
      ? 'Details: describe("tools.ns.tool") prints one declaration with its JSDoc and types.'
      : 'More: search("words", { namespace }) or `gateway search WORDS --namespace NS`;',
  ];
  if (shown !== total) {
    lines.push('describe("tools.ns.tool") for one declaration; `gateway tools types NS` for all.');
  }
  return `${lines.join("\n")}\n`;
}

function validateBudget(budgetTokens: number): void {
  if (!Number.isFinite(budgetTokens) || budgetTokens < 0) {
    throw new InvalidArgumentError(
      `Cannot build catalogue: "budgetTokens" must be a non-negative number, got "${budgetTokens}"`,
    );
  }
}

/**
 * Builds the catalogue text within a token budget. Every namespace is always listed with its
 * tool count and status; then each round every namespace, in name order, adds its cheapest
 * remaining signature (by characters; ties by path) while it fits, so no namespace is starved.
 * The same snapshot and budget always give the same text.
 *
 * @example
 * ```ts
 * import { buildCatalog } from "./catalog.ts";
 * import { syntheticSnapshot } from "./synthetic_snapshot.ts";
 * import assert from "node:assert/strict";
 * const { text, complete } = buildCatalog(syntheticSnapshot(), { budgetTokens: 500 });
 * assert.equal(complete, false);
 * assert.match(text, /^Tool catalogue: PARTIAL, \d+ of 96 tools shown \(budget 500 tokens\)\./);
 * ```
 */
export function buildCatalog(
  source: CatalogueSnapshot | CatalogueEntries,
  options: CatalogOptions = {},
): Catalog {
  const budgetTokens = options.budgetTokens ?? 2000;
  validateBudget(budgetTokens);
  const entries = source instanceof CatalogueEntries ? source : new CatalogueEntries(source);
  const budgetChars = Math.floor(budgetTokens * CHARS_PER_TOKEN);
  const scriptCount = entries.snapshot.scripts.length;
  const queues = entries.namespaces.map((ns) =>
    entries.toolsOf(ns)
      .map((entry): Candidate => ({ entry, text: candidateText(entry) }))
      .sort((a, b) => a.text.length - b.text.length || compareText(a.entry.path, b.entry.path))
  );
  const counts = queues.map((queue) => queue.length);
  const summaries = (shownCounts: readonly number[]): CatalogNamespace[] =>
    entries.namespaces.map((ns, i) => ({
      name: ns.name,
      identifier: ns.identifier,
      kind: ns.kind,
      status: ns.status,
      count: counts[i]!,
      shown: shownCounts[i]!,
    }));

  // Round-robin: each namespace adds its cheapest remaining signature while it fits.
  const taken: number[] = [];
  const shown = entries.namespaces.map(() => 0);
  const blocked = entries.namespaces.map(() => false);
  const footer = options.footer === undefined ? "" : `${options.footer}\n`;
  let remaining = budgetChars - footer.length -
    renderHeader(summaries(shown), { scriptCount, budgetTokens }).length;
  for (let progress = true; progress;) {
    progress = false;
    for (let i = 0; i < queues.length; i++) {
      const next = queues[i]![shown[i]!];
      if (blocked[i] || next === undefined) continue;
      const heading = shown[i] === 0
        ? sectionHeading(entries.namespaces[i]!, { shown: counts[i]!, count: counts[i]! }).length
        : 0;
      const cost = next.text.length + heading;
      if (cost > remaining) {
        blocked[i] = true;
        continue;
      }
      remaining -= cost;
      shown[i] = shown[i]! + 1;
      taken.push(i);
      progress = true;
    }
  }

  // The header's numbers change with the selection; drop the last picks until the text fits.
  const render = () =>
    renderHeader(summaries(shown), { scriptCount, budgetTokens }) +
    renderSections(entries.namespaces, { queues, shown }) + footer;
  let text = render();
  while (text.length > budgetChars && taken.length > 0) {
    const i = taken.pop()!;
    shown[i] = shown[i]! - 1;
    text = render();
  }
  const total = counts.reduce((sum, n) => sum + n, 0);
  const shownTotal = shown.reduce((sum, n) => sum + n, 0);
  return {
    text,
    complete: shownTotal === total,
    shown: shownTotal,
    total,
    namespaces: summaries(shown),
  };
}

/** The per-namespace sections: a heading, then the picked tools in path order. */
function renderSections(
  namespaces: readonly CatalogueNamespace[],
  selection: { queues: readonly Candidate[][]; shown: readonly number[] },
): string {
  const sections: string[] = [];
  for (let i = 0; i < namespaces.length; i++) {
    const count = selection.shown[i]!;
    const queue = selection.queues[i]!;
    if (count === 0) continue;
    const picked = queue.slice(0, count).sort((a, b) => compareText(a.entry.path, b.entry.path));
    sections.push(
      sectionHeading(namespaces[i]!, { shown: count, count: queue.length }) +
        picked.map((candidate) => candidate.text).join(""),
    );
  }
  return sections.join("");
}
