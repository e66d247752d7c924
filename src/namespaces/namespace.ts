/**
 * The Namespace seam: what every source of tools (local `.ts` module, MCP upstream) offers the
 * router. One contract, several implementations, one shared contract test.
 * @module
 */

import type { FailureKind } from "../protocol/run_document.ts";

/** Where a namespace is in its life; shown by `gateway tools` and `/health`. */
export type NamespaceStatus =
  | { state: "starting" }
  | { state: "ready" }
  | { state: "failed"; reason: string }
  | { state: "disabled" };

/** What a namespace is made from. */
export type NamespaceKind = "local" | "mcp" | "openapi" | "graphql";

/**
 * Tool annotation naming the policy action (`"ask"` or `"deny"`) for a call no policy rule
 * matches; API namespaces set it on calls that change something.
 */
export const DEFAULT_ACTION_ANNOTATION = "gatewayDefaultAction";

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
  /** Type the call resolves to after unwrapping (SPEC §6). */
  outputType: string;
  /** Parameter names with one-line docs, for search ranking and `describe`. */
  params: { name: string; description: string; required: boolean }[];
  /** JSON Schema of the argument, validated before a call is sent (MCP; local tools may omit). */
  inputSchema?: JsonSchema;
  /** Declared output schema (MCP), which decides JSON parsing of text results. */
  outputSchema?: JsonSchema;
  /** MCP tool annotations (`destructiveHint`, …), used by policy rules. */
  annotations?: Record<string, unknown>;
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

/** The untouched result envelope of a call (MCP `CallToolResult` shape). */
export interface RawToolResult {
  content: Array<{ type: string; [key: string]: unknown }>;
  structuredContent?: unknown;
  isError?: boolean;
  [key: string]: unknown;
}

/** What one tool call gives back: the unwrapped value (SPEC §6) and the envelope. */
export interface ToolCallResult {
  value: unknown;
  raw: RawToolResult;
}

/** Progress an upstream reported for a call in flight. */
export interface ToolProgress {
  progress: number;
  total?: number;
  message?: string;
}

/** Per-call context the router hands to a namespace. */
export interface ToolCallOptions {
  /** Aborted when the run ends, is cancelled or the call times out; must cancel upstream work. */
  signal: AbortSignal;
  /** Silence allowed before the call fails with `ToolTimeout`; progress resets it. */
  callTimeoutMs: number;
  /** Hard wall for the call, progress or not. */
  callMaxMs: number;
  onProgress?: (progress: ToolProgress) => void;
}

/**
 * A failed call, with the failure kind the run document will carry. Thrown by namespaces; the
 * router turns it into `ToolError`/`ToolTimeout`/… for the script.
 */
export class ToolCallError extends Error {
  /** Which failure kind this is, e.g. `ToolError` or `NamespaceUnavailable`. */
  readonly kind: FailureKind;
  /** The envelope when the tool answered with `isError`. */
  readonly raw: RawToolResult | undefined;
  constructor(
    kind: FailureKind,
    message: string,
    options?: { raw?: RawToolResult; cause?: unknown },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ToolCallError";
    this.kind = kind;
    this.raw = options?.raw;
  }
}

/** Resources of an MCP server, for the `resources` script global. */
export interface ResourceListing {
  resources: Array<{ uri: string; name: string; description?: string; mimeType?: string }>;
  templates: Array<{ uriTemplate: string; name: string; description?: string; mimeType?: string }>;
}

/** Contents of one read resource; `blob` is base64 as MCP sends it. */
export interface ResourceContents {
  contents: Array<{ uri: string; mimeType?: string; text?: string; blob?: string }>;
}

/**
 * A source of tools. Implementations own their process or connection, report status, and never
 * throw out of `start`/`stop`: failures become a `failed` status with a reason.
 */
export interface Namespace {
  /** The configured name (config key or file stem), before sanitising. */
  readonly name: string;
  /** "local" for a tool module, "mcp" for an upstream server, "openapi"/"graphql" for an HTTP API. */
  readonly kind: NamespaceKind;
  status(): NamespaceStatus;
  catalogue(): NamespaceCatalogue;
  /** Starts loading/connecting; resolves when ready or failed, never rejects. */
  start(): Promise<void>;
  /** Ends processes and connections this namespace started; idempotent. */
  stop(): Promise<void>;
  /** Calls a tool by its original name. Rejects with {@linkcode ToolCallError}. */
  callTool(tool: string, args: unknown, options: ToolCallOptions): Promise<ToolCallResult>;
  /** Registers a listener for status or catalogue changes; returns an unsubscribe function. */
  onChange(listener: () => void): () => void;
  listResources?(): Promise<ResourceListing>;
  readResource?(uri: string): Promise<ResourceContents>;
}
