/**
 * An upstream MCP server as a gateway namespace: the {@linkcode Namespace} face over a
 * connection supervisor (lifecycle, catalogue), the call path (validation, then
 * `mcp_tool_call.ts`) and resources, prompts and completions (`mcp_resources.ts`).
 * @module
 */

import { UpstreamOAuthProvider } from "./upstream_oauth_provider.ts";
import { OAuthStore } from "./oauth_store.ts";
import { EraVerdicts } from "./era_verdicts.ts";
import type { McpServerConfig } from "../../config/gateway_config.ts";
import type {
  HostRound,
  Namespace,
  NamespaceCapability,
  NamespaceCatalogue,
  NamespaceStatus,
  ResourceContents,
  ResourceListing,
  Resources,
  StderrTail,
  ToolCallOptions,
  ToolCallResult,
  UpstreamEvents,
  UpstreamLogMessage,
  UpstreamMethod,
  UpstreamRequests,
} from "../namespace.ts";
import { checkedToolInput } from "../kind_support/tool_input_check.ts";
import { McpConnectionSupervisor } from "./mcp_connection_supervisor.ts";
import type { UpstreamConnection } from "./connect_upstream.ts";
import { type LogMethods, SILENT_LOGGER } from "../../logger.ts";
import { forwardUpstreamRequest, listMcpResources, readMcpResource } from "./mcp_resources.ts";
import { sendMcpToolCall } from "./mcp_tool_call.ts";
import { unknownToolError } from "../unknown_tool_error.ts";
import type { RestartPolicyOptions } from "../../process/restart_policy.ts";
import type { ProtocolLog } from "./protocol_log.ts";

/** Settings beyond the server's config entry. */
export interface McpNamespaceOptions {
  /** Receives upstream stderr lines, protocol errors and status changes. @default silent */
  logger?: LogMethods;
  /** Back-off and breaker tuning. @default 0.5 s doubling to 30 s; 5 crashes in 60 s hold it 5 min */
  restart?: Partial<RestartPolicyOptions>;
  /** For stdio servers: grace after closing stdin, and again after SIGTERM. @default 2000 */
  killGraceMs?: number;
  /** Told the pid of every stdio child started (the process ledger). */
  onSpawn?: (pid: number) => void;
  /**
   * The data dir, where OAuth state lives (`DATA_DIR/oauth/NAME.json`; without it an HTTP
   * server that asks for authorization cannot be reached) and the servers' protocol eras are
   * kept (`DATA_DIR/mcp/eras.json`; without it each process asks each server once).
   */
  dataDir?: string;
  /** Told every message to and from the upstream (the dashboard's protocol log). */
  protocolLog?: ProtocolLog;
}

/**
 * One `mcpServers` entry as a {@linkcode Namespace}. `start()` connects within
 * `startTimeoutMs` and never rejects; a lost connection marks it failed (with the stderr tail),
 * fails calls fast with `NamespaceUnavailable` and reconnects with back-off.
 *
 * @example
 * ```ts ignore
 * import { McpNamespace } from "./mcp_namespace.ts";
 * const ns = new McpNamespace("everything", {
 *   command: "node", args: ["server.js"], env: {}, disabled: false, startTimeoutMs: 10_000,
 * });
 * await ns.start();
 * const { value } = await ns.callTool("echo", { message: "hi" }, {
 *   signal: new AbortController().signal, callTimeoutMs: 60_000, callMaxMs: 600_000,
 * });
 * await ns.stop();
 * ```
 */
export class McpNamespace
  implements Namespace, Resources, UpstreamRequests, StderrTail, UpstreamEvents {
  /** The `mcpServers` key. */
  readonly name: string;
  /** Always "mcp". */
  readonly kind = "mcp" as const;
  /** Lists and reads resources, relays prompts and completions, keeps a stdio child's stderr, passes on logs and updates. */
  readonly capabilities: ReadonlySet<NamespaceCapability> = new Set([
    "resources",
    "upstream-requests",
    "stderr-tail",
    "upstream-events",
  ]);
  readonly #supervisor: McpConnectionSupervisor;

  constructor(name: string, config: McpServerConfig, options: McpNamespaceOptions = {}) {
    this.name = name;
    let oauth: UpstreamOAuthProvider | undefined;
    if ("url" in config && config.oauth !== false && options.dataDir !== undefined) {
      oauth = new UpstreamOAuthProvider({
        namespace: name,
        store: new OAuthStore(options.dataDir, name),
        settings: {
          ...(config.oauth?.clientId ? { clientId: config.oauth.clientId } : {}),
          ...(config.oauth?.clientSecret ? { clientSecret: config.oauth.clientSecret } : {}),
          ...(config.oauth?.scopes ? { scopes: config.oauth.scopes } : {}),
        },
      });
    }
    const logger = options.logger ?? SILENT_LOGGER;
    this.#supervisor = new McpConnectionSupervisor(name, config, {
      logger,
      eras: new EraVerdicts(options.dataDir, { onError: (message) => logger.warn(message) }),
      restart: options.restart,
      killGraceMs: options.killGraceMs,
      onSpawn: options.onSpawn,
      oauth,
      protocolLog: options.protocolLog,
    });
  }

  /** Current status; `failed` carries the reason (with the stderr tail for stdio servers). */
  status(): NamespaceStatus {
    return this.#supervisor.status();
  }

  /** The last good catalogue; kept while the server is down so types still render. */
  catalogue(): NamespaceCatalogue {
    return this.#supervisor.catalogue();
  }

  /** The kept end (64 KiB) of the current or last stdio child's stderr. */
  stderrTail(): string {
    return this.#supervisor.stderrTail();
  }

  /** Process id of the running stdio child, if any. */
  get pid(): number | undefined {
    return this.#supervisor.connection?.process?.pid;
  }

  /** The transport of the live connection (shows whether "auto" fell back to SSE). */
  get connectedVia(): "stdio" | "streamable-http" | "sse" | undefined {
    return this.#supervisor.connection?.via;
  }

  /**
   * The protocol of the live connection: its era, the version agreed, and whether the era came
   * from the verdict kept in the data dir (no question asked of the server at this connect).
   */
  get protocol():
    | { era: "modern" | "legacy"; version: string | undefined; fromKeptVerdict: boolean }
    | undefined {
    const connection = this.#supervisor.connection;
    if (connection === undefined) return undefined;
    return {
      era: connection.era,
      version: connection.client.getNegotiatedProtocolVersion(),
      fromKeptVerdict: connection.fromPrior,
    };
  }

  /** Connects; resolves once ready or failed (never rejects). Later failures retry by themselves. */
  start(): Promise<void> {
    return this.#supervisor.start();
  }

  /**
   * Ends the connection and any pending reconnect: stdin closed, then SIGTERM and SIGKILL to the
   * child's process group after the grace periods. Idempotent; leaves status `failed: stopped`.
   */
  stop(): Promise<void> {
    return this.#supervisor.stop();
  }

  /** Registers `listener` for status and catalogue changes; returns its unsubscribe function. */
  onChange(listener: () => void): () => void {
    return this.#supervisor.onChange(listener);
  }

  /**
   * Calls MCP tool `tool`: validates `args` against its input schema, sends a progress token,
   * times out after `callTimeoutMs` without answer or progress and at `callMaxMs` in any case,
   * and cancels upstream (`notifications/cancelled`) on timeout or when `signal` aborts.
   * Rejects with a {@linkcode ToolCallError} of kind `NamespaceUnavailable`, `UnknownTool`,
   * `InvalidToolInput`, `ToolTimeout`, `Cancelled` or `ToolError`.
   */
  callTool(tool: string, args: unknown, options: ToolCallOptions): Promise<ToolCallResult> {
    // A ready namespace writes the request in this turn (no promise layer before it);
    // one still starting waits for its first start.
    const live = this.#supervisor.liveConnection;
    if (live === undefined) return this.#callWhenReady(tool, args, options);
    try {
      return this.#send(live, tool, args, options);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async #callWhenReady(
    tool: string,
    args: unknown,
    options: ToolCallOptions,
  ): Promise<ToolCallResult> {
    const connection = await this.#supervisor.readyConnection(options.signal);
    return await this.#send(connection, tool, args, options);
  }

  /** Checks `tool` and `args` (throws `UnknownTool`, `InvalidToolInput`), then sends the call. */
  #send(
    connection: UpstreamConnection,
    tool: string,
    args: unknown,
    options: ToolCallOptions,
  ): Promise<ToolCallResult> {
    const tools = this.#supervisor.tools;
    const entry = tools.get(tool);
    if (entry === undefined) throw unknownToolError(this.name, tool, [...tools.keys()]);
    const input = checkedToolInput(args, () => entry.check, `${this.name}.${tool}`);
    return sendMcpToolCall(this.#supervisor, { connection, entry, input }, options);
  }

  /** Resources and resource templates; empty when the server has no `resources` capability. */
  async listResources(): Promise<ResourceListing> {
    const { client } = await this.#supervisor.readyConnection();
    return await listMcpResources(client, this.name);
  }

  /** Reads resource `uri`; `blob` stays base64 as MCP sends it. */
  async readResource(uri: string): Promise<ResourceContents> {
    const { client } = await this.#supervisor.readyConnection();
    return await readMcpResource(client, this.name, uri);
  }

  /** Tells `listener` each log message the upstream sends (the proxy exposure relays them). */
  onLogMessage(listener: (message: UpstreamLogMessage) => void): () => void {
    return this.#supervisor.notifications.onLogMessage(listener);
  }

  /** Tells `listener` the URI of each subscribed resource the upstream says has changed. */
  onResourceUpdated(listener: (uri: string) => void): () => void {
    return this.#supervisor.notifications.onResourceUpdated(listener);
  }

  /**
   * Forwards one prompts/completion/resource request upstream unchanged, so the gateway's own
   * MCP server can offer the upstream's prompts and completions under a namespaced name, or the
   * namespace as itself (`hostRound`: the host answers the upstream's questions). Rejects with
   * `ToolError` naming the namespace when the upstream refuses.
   */
  async upstreamRequest(
    method: UpstreamMethod,
    params: Record<string, unknown>,
    hostRound?: HostRound,
  ): Promise<unknown> {
    const { client } = await this.#supervisor.readyConnection();
    return await forwardUpstreamRequest(
      client,
      this.name,
      { method, params, ...(hostRound === undefined ? {} : { hostRound }) },
      this.#supervisor.notifications,
    );
  }
}
