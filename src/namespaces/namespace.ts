/**
 * The Namespace seam: what every source of tools (local `.ts` module, MCP upstream) offers the
 * router. One contract, several implementations, one shared contract test.
 * @module
 */

import type { RawToolResult, ToolProgress } from "../protocol/tool_call.ts";
import type { NamespaceCatalogue, NamespaceKind, NamespaceStatus } from "../protocol/catalogue.ts";

// The catalogue model lives at the protocol level (everything above the namespaces reads it);
// namespace implementations keep importing it from here.
export type {
  JsonSchema,
  NamespaceCatalogue,
  NamespaceKind,
  NamespaceStatus,
  ToolDescriptor,
  ToolSecurity,
} from "../protocol/catalogue.ts";
export {
  type RawToolResult,
  ToolCallError,
  type ToolProgress,
  type UpstreamRpcError,
} from "../protocol/tool_call.ts";

/**
 * Tool annotation naming the policy action (`"ask"` or `"deny"`) for a call no policy rule
 * matches; API namespaces set it on calls that change something.
 */
export const DEFAULT_ACTION_ANNOTATION = "gatewayDefaultAction";

/** What one tool call gives back: the unwrapped value and the envelope. */
export interface ToolCallResult {
  value: unknown;
  raw: RawToolResult;
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
  /**
   * Holds a question the tool's server asks while the call runs (an MCP elicitation) until a
   * person says yes or no; absent when nobody can be asked (a call outside a run), and the
   * question is then declined.
   */
  askUser?: (question: { message: string; fields: Record<string, unknown> }) => Promise<
    { allowed: boolean; by: string }
  >;
  /**
   * Present when the caller answers the server's questions itself (a host the gateway serves a
   * namespace to as itself): see {@linkcode HostRound}. Only MCP namespaces read it.
   */
  hostRound?: HostRound;
}

/**
 * One round of a request whose caller (an MCP host the gateway serves one namespace to as
 * itself) answers the upstream's questions itself: the upstream is told what the host can be
 * asked and the log level it wants, instead of the gateway's own; an input-required answer
 * comes back as it is ({@linkcode INPUT_REQUIRED}, its `requestState` untouched) instead of
 * being put to anyone; the host's next round carries its answers and the state.
 */
export interface HostRound {
  /** What the host can answer (its client capabilities, as it declared them). */
  capabilities: Record<string, unknown>;
  /** The host's answers to the previous round's input requests, by key. */
  inputResponses?: Record<string, unknown>;
  /** The previous round's `requestState`, echoed as it was. */
  requestState?: string;
  /** The least severe log level the host wants; absent: it wants no log messages. */
  logLevel?: string;
  /** Told each log message the upstream sends while the request runs. */
  onLog?: (message: { level: string; logger?: string; data: unknown }) => void;
}

/** The `resultType` of an answer that asks the caller for input first (2026-07-28). */
export const INPUT_REQUIRED = "input_required";

/**
 * An upstream's input-required answer handed back to a {@linkcode HostRound} caller: the raw
 * result of the call (no content) with the requests and the state as the upstream sent them.
 */
export interface InputRequiredAnswer extends RawToolResult {
  content: [];
  resultType: typeof INPUT_REQUIRED;
  inputRequests?: Record<string, unknown>;
  requestState?: string;
}

/** Whether a raw result is an upstream's input-required answer. */
export function isInputRequiredAnswer(value: unknown): value is InputRequiredAnswer {
  return typeof value === "object" && value !== null &&
    (value as { resultType?: unknown }).resultType === INPUT_REQUIRED;
}

/**
 * What a call will execute, as the policy gate judges it: the tools it runs (a GraphQL
 * document's root fields, each by the tool it is; otherwise the one tool called), the
 * arguments as they go out, and a one-line description of the request for messages.
 */
export interface CallRequest {
  /** Original names of this namespace's tools the request runs; never empty. */
  readonly tools: readonly string[];
  /** The arguments as they go out (a GraphQL field's variables, an operation's parameters). */
  readonly args: Readonly<Record<string, unknown>>;
  /** What goes out, for messages: `DELETE /projects/a/items/7`, `mutation { addBook }`. */
  readonly summary: string;
}

/**
 * A call built and checked, not yet sent: `send` sends exactly the request `request`
 * describes, so what policy approved is what executes.
 */
export interface PreparedCall {
  readonly request: CallRequest;
  send(options: ToolCallOptions): Promise<ToolCallResult>;
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

/** Upstream MCP requests the gateway's own MCP server relays (prompts, completions, …). */
export type UpstreamMethod =
  | "prompts/list"
  | "prompts/get"
  | "completion/complete"
  | "resources/read"
  | "resources/subscribe"
  | "resources/unsubscribe";

/** One `notifications/message` an upstream sent. */
export interface UpstreamLogMessage {
  level: string;
  logger?: string;
  data: unknown;
  /**
   * True when it went to the host of a call in flight (a namespace served as itself), which
   * was sent it with the call: relays to whole connections leave it out.
   */
  toCall?: true;
}

/**
 * An optional capability a namespace states in {@linkcode Namespace.capabilities}; each names
 * the sub-interface the namespace then implements, and the shared contract suite holds every
 * namespace that states one to what it promises:
 * - `"resources"`: {@linkcode Resources}
 * - `"upstream-requests"`: {@linkcode UpstreamRequests}
 * - `"stderr-tail"`: {@linkcode StderrTail}
 * - `"upstream-events"`: {@linkcode UpstreamEvents}
 */
export type NamespaceCapability =
  | "resources"
  | "upstream-requests"
  | "stderr-tail"
  | "upstream-events";

/** What a namespace without optional capabilities states. */
export const NO_CAPABILITIES: ReadonlySet<NamespaceCapability> = new Set();

/** Lists and reads the upstream's resources (the `resources` script global, the dashboard). */
export interface Resources {
  /** Resources and templates; empty when the upstream has none. Waits for a start in progress. */
  listResources(): Promise<ResourceListing>;
  /** One resource's contents; rejects with a {@linkcode ToolCallError} naming the namespace. */
  readResource(uri: string): Promise<ResourceContents>;
}

/** Relays the upstream's own MCP requests (the gateway's MCP server offers its prompts). */
export interface UpstreamRequests {
  /**
   * Sends `method` upstream unchanged; waits for a start in progress, rejects with
   * `NamespaceUnavailable` when the upstream is down and `ToolError` when it refuses.
   */
  upstreamRequest(
    method: UpstreamMethod,
    params: Record<string, unknown>,
    hostRound?: HostRound,
  ): Promise<unknown>;
}

/** Keeps the end of what the upstream's process wrote to stderr (the `upstream.stderr` RPC). */
export interface StderrTail {
  /** The kept end of the current or last process's stderr; "" when there is none. Never throws. */
  stderrTail(): string;
}

/** Tells listeners what the upstream announces between calls. */
export interface UpstreamEvents {
  /** Each log message the upstream sends; returns the unsubscribe function. */
  onLogMessage(listener: (message: UpstreamLogMessage) => void): () => void;
  /** The URI of each subscribed resource the upstream says changed; returns the unsubscribe. */
  onResourceUpdated(listener: (uri: string) => void): () => void;
}

/** What a capability check reads: the capabilities the namespace states. */
type Stating = Pick<Namespace, "capabilities">;

/** True when `ns` states {@linkcode Resources}. */
export function hasResources<T extends Stating>(ns: T): ns is T & Resources {
  return ns.capabilities.has("resources");
}

/** True when `ns` states {@linkcode UpstreamRequests}. */
export function hasUpstreamRequests<T extends Stating>(ns: T): ns is T & UpstreamRequests {
  return ns.capabilities.has("upstream-requests");
}

/** True when `ns` states {@linkcode StderrTail}. */
export function hasStderrTail<T extends Stating>(ns: T): ns is T & StderrTail {
  return ns.capabilities.has("stderr-tail");
}

/** True when `ns` states {@linkcode UpstreamEvents}. */
export function hasUpstreamEvents<T extends Stating>(ns: T): ns is T & UpstreamEvents {
  return ns.capabilities.has("upstream-events");
}

/**
 * A source of tools. Implementations own their process or connection, report status, and never
 * throw out of `start`/`stop`: failures become a `failed` status with a reason. `stop()` then
 * `start()` starts it again (the dashboard's restart).
 */
export interface Namespace {
  /** The configured name (config key or file stem), before sanitising. */
  readonly name: string;
  /** "local" for a tool module, "mcp" for an upstream server, "openapi"/"graphql" for an HTTP API. */
  readonly kind: NamespaceKind;
  /**
   * The optional capabilities it has, each a sub-interface it implements. Code that needs one
   * asks through its guard ({@linkcode hasResources}, {@linkcode hasUpstreamRequests},
   * {@linkcode hasStderrTail}, {@linkcode hasUpstreamEvents}), never by looking for a method.
   */
  readonly capabilities: ReadonlySet<NamespaceCapability>;
  status(): NamespaceStatus;
  catalogue(): NamespaceCatalogue;
  /** Starts loading/connecting; resolves when ready or failed, never rejects. */
  start(): Promise<void>;
  /** Ends processes and connections this namespace started; idempotent. */
  stop(): Promise<void>;
  /**
   * Builds the request a call of `tool` with `args` sends, for the policy gate to judge before
   * anything is sent; throws {@linkcode ToolCallError} (`InvalidToolInput`, `UnknownTool`) when
   * it cannot be built. A namespace whose request is more than the tool and its arguments (a
   * GraphQL document, an HTTP method and path) must have it; without it the request is the tool
   * and the arguments as given, sent with {@linkcode callTool}.
   */
  prepare?(tool: string, args: unknown): PreparedCall;
  /**
   * Calls a tool by its original name. Rejects with {@linkcode ToolCallError}. Only the tool
   * dispatcher calls it (after the policy gate); every other part reaches tools through it.
   */
  callTool(tool: string, args: unknown, options: ToolCallOptions): Promise<ToolCallResult>;
  /**
   * As {@linkcode callTool}, resolving with the value alone (no envelope), for a script's call
   * that does not ask for `.raw()`: a namespace that has it saves every such call a promise
   * layer on its way back to the script.
   */
  callValue?(tool: string, args: unknown, options: ToolCallOptions): Promise<unknown>;
  /** Registers a listener for status or catalogue changes; returns an unsubscribe function. */
  onChange(listener: () => void): () => void;
}
