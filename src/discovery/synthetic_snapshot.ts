/**
 * A made-up but realistic catalogue snapshot (namespaces × tools, with declarations, odd names,
 * a failed and a starting namespace, and named scripts) for discovery tests and benchmarks.
 * @module
 */

import { buildToolIdentifiers, toIdentifier } from "../protocol/names.ts";
import type {
  CatalogueNamespace,
  CatalogueSnapshot,
  NamespaceStatus,
  SnapshotScript,
  ToolDescriptor,
} from "../protocol/catalogue.ts";

const NAMESPACES: ReadonlyArray<readonly [name: string, noun: string]> = [
  ["github", "issue"],
  ["kv", "entry"],
  ["sqlite", "table"],
  ["fs", "file"],
  ["memory", "note"],
  ["slack", "message"],
  ["fancy-name", "widget"],
  ["weather", "forecast"],
  ["calendar", "event"],
  ["mail", "draft"],
  ["docs", "page"],
  ["jira", "ticket"],
];

const VERBS = ["get", "list", "create", "update", "delete", "search", "archive", "export"];

/** Named scripts every synthetic snapshot carries. */
export const SYNTHETIC_SCRIPTS: readonly SnapshotScript[] = [
  {
    name: "deploy",
    description: "Deploys the site to production after the checks pass.\nRuns the smoke tests too.",
    examples: ["gateway run deploy staging", "gateway run deploy production v1.2"],
    params: [{ name: "target", description: "Where to deploy." }, {
      name: "version",
      description: "Release tag.",
    }],
  },
  {
    name: "weekly-report",
    description: "Summarises closed tickets and merged pull requests into a weekly report.",
    examples: ["gateway run weekly-report"],
    params: [],
  },
  {
    name: "backup/kv",
    description: "Copies every key-value entry to a JSON file.",
    examples: ["gateway run backup/kv out.json"],
    params: [{ name: "file", description: "Output path." }],
  },
];

function capital(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

function makeTool(verb: string, options: { ns: string; noun: string; n: number; sep: string }) {
  const { ns, noun, n, sep } = options;
  const suffix = n === 0 ? "" : `${sep}${n}`;
  const originalName = `${verb}${sep}${noun}${suffix}`;
  const Noun = capital(noun);
  const filler = " It retries once on a transient failure and reports what it changed.".repeat(
    n % 3,
  );
  const base = { originalName, params: [] as ToolDescriptor["params"] };
  const describe = (text: string) => `${text}${filler}\nSee the ${ns} documentation.`;
  switch (verb) {
    case "get":
      return {
        ...base,
        description: describe(`Gets one ${noun} from ${ns} by id.`),
        inputType: `Get${Noun}Args`,
        inputOptional: false,
        outputType: Noun,
        params: [{ name: "id", description: `The ${noun} id.`, required: true }],
      };
    case "list":
      return {
        ...base,
        description: describe(`Lists ${noun}s in ${ns}, newest first.`),
        inputType: "{ limit?: number; cursor?: string }",
        inputOptional: true,
        outputType: `${Noun}[]`,
        params: [
          { name: "limit", description: "Most to return.", required: false },
          { name: "cursor", description: "Page cursor.", required: false },
        ],
      };
    case "create":
      return {
        ...base,
        description: describe(`Creates a ${noun} in ${ns}.`),
        inputType: `{\n  /** Title shown in lists. */\n  title: string;\n  body?: string;\n}`,
        inputOptional: false,
        outputType: Noun,
        params: [
          { name: "title", description: "Title shown in lists.", required: true },
          { name: "body", description: "", required: false },
        ],
      };
    case "search":
      return {
        ...base,
        description: describe(`Finds ${noun}s in ${ns} matching a query.`),
        inputType: "{ query: string; limit?: number }",
        inputOptional: false,
        outputType: `${Noun}[]`,
        params: [
          { name: "query", description: "Words to match.", required: true },
          { name: "limit", description: "", required: false },
        ],
      };
    case "archive":
      return {
        ...base,
        description: describe(`Archives every stale ${noun} in ${ns}.`),
        inputType: null,
        inputOptional: true,
        outputType: "{ archived: number }",
      };
    case "export":
      return {
        ...base,
        description: describe(`Exports all ${noun}s of ${ns} as CSV or JSON.`),
        inputType: `ExportFormat`,
        inputOptional: false,
        outputType: "string",
        params: [{ name: "format", description: "Output format.", required: true }],
      };
    default:
      return {
        ...base,
        description: describe(`${capital(verb)}s a ${noun} in ${ns}.`),
        inputType: "{ id: string }",
        inputOptional: false,
        outputType: "void",
        params: [{ name: "id", description: `The ${noun} id.`, required: true }],
      };
  }
}

function declarationsFor(ns: string, noun: string): string {
  const Noun = capital(noun);
  return [
    `/** One ${noun} as ${ns} stores it. */`,
    `interface ${Noun} {`,
    `  /** Unique id, e.g. "${noun}-1". */`,
    "  id: string;",
    "  title: string;",
    `  owner: Owner;`,
    "}",
    "/** Who owns an item. */",
    "interface Owner { login: string }",
    `interface Get${Noun}Args { id: string }`,
    'type ExportFormat = { format: "csv" | "json" };',
  ].join("\n");
}

/** Options of {@linkcode syntheticSnapshot}. */
export interface SyntheticSnapshotOptions {
  /** Number of namespaces. @default 12 */
  namespaces?: number;
  /** Tools per namespace. @default 8 */
  toolsPerNamespace?: number;
}

/**
 * Builds a deterministic snapshot: `jira` is failed (its last known tools kept), `weather` is
 * starting, `fancy-name` needs sanitising, even namespaces use `-` in tool names. With more than
 * 12 namespaces the extra ones are `ns12`, `ns13` …
 */
export function syntheticSnapshot(options: SyntheticSnapshotOptions = {}): CatalogueSnapshot {
  const count = options.namespaces ?? 12;
  const perNamespace = options.toolsPerNamespace ?? 8;
  const namespaces: CatalogueNamespace[] = [];
  for (let i = 0; i < count; i++) {
    const [name, noun] = NAMESPACES[i] ?? [`ns${i}`, `item${i}`];
    const sep = i % 2 === 0 ? "-" : "_";
    const tools: ToolDescriptor[] = [];
    for (let k = 0; k < perNamespace; k++) {
      const verb = VERBS[k % VERBS.length]!;
      tools.push(makeTool(verb, { ns: name, noun, n: Math.floor(k / VERBS.length), sep }));
    }
    const catalogue = { tools, declarations: declarationsFor(name, noun), warnings: [] };
    const status: NamespaceStatus = name === "jira"
      ? { state: "failed", reason: "connect ECONNREFUSED 127.0.0.1:8080" }
      : name === "weather"
      ? { state: "starting" }
      : { state: "ready" };
    namespaces.push({
      name,
      identifier: toIdentifier(name),
      kind: i % 3 === 1 ? "local" : "mcp",
      status,
      catalogue,
      toolIdentifiers: buildToolIdentifiers(catalogue).identifiers,
    });
  }
  return { namespaces, scripts: SYNTHETIC_SCRIPTS.map((script) => ({ ...script })) };
}
