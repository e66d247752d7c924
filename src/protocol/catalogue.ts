/**
 * The one catalogue model: what a namespace exposes (tools with their types) and how the
 * registry, the type renderer, discovery, the server and the script runner all see a
 * namespace. Plain JSON-able data, so the same objects cross the run channel unchanged.
 * @module
 */

/** Where a namespace is in its life; shown by `gateway tools` and `/health`. */
export type NamespaceStatus =
  | { state: "starting" }
  | { state: "ready" }
  | { state: "failed"; reason: string }
  | { state: "disabled" };

/** What a namespace is made from. */
export type NamespaceKind = "local" | "mcp" | "openapi" | "graphql";

/** A JSON Schema object as MCP carries it; kept loose because upstreams send any dialect. */
export type JsonSchema = { [key: string]: unknown };

/**
 * One tool as the catalogue, the type renderer and search see it. Types are TypeScript source
 * text that may refer to names in {@linkcode NamespaceCatalogue.declarations}.
 */
export interface ToolDescriptor {
  /** The tool's own name (MCP tool name or export name): what is sent upstream. */
  originalName: string;
  /** JSDoc text (may span lines); empty when the tool has none. */
  description: string;
  /** Type of the single argument, or null when the tool takes none. */
  inputType: string | null;
  /** True when the argument may be omitted (no parameter, or every property optional). */
  inputOptional: boolean;
  /** Type the call resolves to after unwrapping. */
  outputType: string;
  /** Parameter names with one-line docs, for search ranking and `describe`. */
  params: { name: string; description: string; required: boolean }[];
  /**
   * False when no string literal or template literal type appears anywhere in the argument's
   * type (read from a local tool's TypeScript): every string then fits wherever one does, so an
   * argument shape found fitting stands for every string value in it. Absent: a string's value
   * may decide.
   */
  stringValuesDecide?: boolean;
  /** JSON Schema of the argument, validated before a call is sent (MCP; local tools may omit). */
  inputSchema?: JsonSchema;
  /** Declared output schema (MCP), which decides JSON parsing of text results. */
  outputSchema?: JsonSchema;
  /** MCP tool annotations (`destructiveHint`, …), used by policy rules. */
  annotations?: Record<string, unknown>;
  /** What a call needs to be allowed (an API's security requirements); absent: nothing. */
  security?: ToolSecurity;
}

/**
 * What a tool needs to be allowed (an HTTP API's security requirements, in words) and whether
 * the gateway's configuration provides it: `by` where it does, `fix` what to add where not.
 */
export type ToolSecurity =
  | { needs: string; satisfied: true; by: string }
  | { needs: string; satisfied: false; fix: string };

/**
 * A tool's security on one line, for listings and `describe`:
 * `needs oauth2 "auth" (scopes write): provided by headers."Authorization"`, or
 * `needs …: not configured — add …`.
 */
export function securityLine(security: ToolSecurity): string {
  return security.satisfied
    ? `needs ${security.needs}: provided by ${security.by}`
    : `needs ${security.needs}: not configured — ${security.fix}`;
}

/** Everything a namespace currently exposes; replaced whole when it changes. */
export interface NamespaceCatalogue {
  tools: ToolDescriptor[];
  /**
   * Supporting declarations (interfaces, type aliases) the tool types refer to, as TypeScript
   * source placed inside `declare namespace <ns> { … }`; names in it must not be exported
   * with `export default`.
   */
  declarations: string;
  /** MCP prompts, listed by `gateway tools NS`. */
  prompts?: { name: string; description: string }[];
  /** Human-readable problems found while loading (collisions, skipped exports …). */
  warnings: string[];
}

/**
 * original tool name → script identifier. A plain record (own properties only; names that
 * would break plain objects, like `__proto__`, are refused when identifiers are assigned), so
 * it serialises as is.
 */
export type ToolIdentifiers = Readonly<Record<string, string>>;

/**
 * One namespace as everything above the namespaces sees it: its names, kind, status,
 * catalogue and the identifier of each exposed tool. Tools missing from `toolIdentifiers` are
 * not exposed to scripts (their names were refused) and are shown nowhere.
 */
export interface CatalogueNamespace {
  /** The configured name (config key or file stem), before sanitising. */
  name: string;
  /** The sanitised identifier used under `tools.`. */
  identifier: string;
  kind: NamespaceKind;
  status: NamespaceStatus;
  catalogue: NamespaceCatalogue;
  toolIdentifiers: ToolIdentifiers;
}

/** A named script from `ROOT/scripts/**.ts`, as its leading JSDoc describes it. */
export interface SnapshotScript {
  /** The name `gateway run NAME` takes (path under `scripts/`, no `.ts`). */
  name: string;
  description: string;
  /** `@example` lines, each a command or snippet. */
  examples: string[];
  /** `@param` lines: the arguments the script reads from `args`. */
  params: { name: string; description: string }[];
}

/**
 * The input of discovery: a frozen view of every namespace and named script at one moment,
 * built by the registry and read by the catalogue, search, describe and the LLM guide. Replace
 * it whole when a namespace or script changes.
 */
export interface CatalogueSnapshot {
  namespaces: CatalogueNamespace[];
  scripts: SnapshotScript[];
}

/** A tool a script can call, with the identifier it is called by. */
export interface ExposedTool {
  tool: ToolDescriptor;
  identifier: string;
}

/** Compares strings by code unit, so every ordering here is the same on every machine. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Looks up the script identifier of a tool, or undefined when the tool is not exposed. */
export function lookupToolIdentifier(
  ns: Pick<CatalogueNamespace, "toolIdentifiers">,
  originalName: string,
): string | undefined {
  const ids = ns.toolIdentifiers;
  return Object.hasOwn(ids, originalName) ? ids[originalName] : undefined;
}

/**
 * Lists the tools of a namespace that scripts can call, sorted by original name, so types,
 * catalogue and search agree on what exists and in which order.
 */
export function exposedTools(ns: CatalogueNamespace): ExposedTool[] {
  const out: ExposedTool[] = [];
  for (const tool of ns.catalogue.tools) {
    const identifier = lookupToolIdentifier(ns, tool.originalName);
    if (identifier !== undefined) out.push({ tool, identifier });
  }
  return out.sort((a, b) => compareText(a.tool.originalName, b.tool.originalName));
}

/**
 * Says where a namespace is in words: `ready`, `starting`, `failed: reason`, `disabled`. The one
 * wording of a status, used by errors, types, the catalogue and the guide.
 *
 * @example
 * ```ts
 * import { describeStatus } from "./catalogue.ts";
 * import assert from "node:assert/strict";
 * assert.equal(describeStatus({ state: "failed", reason: "exited with code 1" }), "failed: exited with code 1");
 * ```
 */
export function describeStatus(status: NamespaceStatus): string {
  return status.state === "failed" ? `failed: ${status.reason}` : status.state;
}

/** How a kind reads in docs and guides ("local tool module", "MCP server", …). */
export function namespaceKindLabel(kind: NamespaceKind, short = false): string {
  switch (kind) {
    case "local":
      return short ? "local module" : "local tool module";
    case "mcp":
      return "MCP server";
    case "openapi":
      return "OpenAPI HTTP API";
    case "graphql":
      return "GraphQL API";
  }
}

/** The first non-empty line of a description, trimmed; empty when there is none. */
export function firstLine(text: string): string {
  for (const line of text.split(/\r?\n/)) {
    const trimmed = line.trim();
    if (trimmed !== "") return trimmed;
  }
  return "";
}
