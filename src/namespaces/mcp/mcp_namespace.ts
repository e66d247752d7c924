/**
 * An upstream MCP server as a gateway namespace: connection lifecycle (start timeout, crash
 * detection, back-off reconnects, breaker), the cached tool catalogue, validated and cancellable
 * tool calls, resources and prompts. Longer than most files because the lifecycle and the call
 * path share state that is clearer kept in one class.
 * @module
 */

import {
  findLoginRequired,
  LoginRequiredError,
  UpstreamOAuthProvider,
} from "./upstream_oauth_provider.ts";
import { OAuthStore } from "./oauth_store.ts";
import type { McpServerConfig } from "../../config/gateway_config.ts";
import {
  type Namespace,
  type NamespaceCatalogue,
  type NamespaceStatus,
  type RawToolResult,
  type ResourceContents,
  type ResourceListing,
  ToolCallError,
  type ToolCallOptions,
  type ToolCallResult,
  type ToolProgress,
} from "../namespace.ts";
import { buildCatalogue, type McpToolListing } from "./build_catalogue.ts";
import { connectUpstream, type UpstreamConnection } from "./connect_upstream.ts";
import { type ArgumentCheck, InputValidator } from "./input_validator.ts";
import { type LogMethods, SILENT_LOGGER } from "../../logger.ts";
import {
  type Client,
  ErrorCode,
  LoggingMessageNotificationSchema,
  McpError,
  PromptListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "./mcp_sdk.ts";
import { nearestNames } from "../../protocol/names.ts";
import { RestartPolicy, type RestartPolicyOptions } from "../../process/restart_policy.ts";
import type { RenderedSchema } from "./schema_to_typescript.ts";
import { describeExit } from "../../process/describe_exit.ts";
import { TailBuffer } from "./tail_buffer.ts";
import { unwrapToolResult } from "./unwrap_tool_result.ts";

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
   * The data dir, where OAuth state lives (`DATA_DIR/oauth/NAME.json`); without it an HTTP
   * server that asks for authorization cannot be reached.
   */
  dataDir?: string;
}

/** Progress forwarded to callers at most this often (the final one always passes). */
const PROGRESS_INTERVAL_MS = 100;

interface ToolEntry {
  listing: McpToolListing;
  /** Undefined when the schema could not be compiled: arguments go through unchecked. */
  check: ArgumentCheck | undefined;
}

/** One `notifications/message` an upstream sent. */
export interface UpstreamLogMessage {
  level: string;
  logger?: string;
  data: unknown;
}

/** Upstream MCP requests the gateway's own MCP server forwards (prompts, completions, …). */
export type UpstreamMethod =
  | "prompts/list"
  | "prompts/get"
  | "completion/complete"
  | "resources/subscribe"
  | "resources/unsubscribe";

const UPSTREAM_CAPABILITY: Record<UpstreamMethod, "prompts" | "completions" | "resources"> = {
  "prompts/list": "prompts",
  "prompts/get": "prompts",
  "completion/complete": "completions",
  "resources/subscribe": "resources",
  "resources/unsubscribe": "resources",
};

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
export class McpNamespace implements Namespace {
  /** The `mcpServers` key. */
  readonly name: string;
  /** Always "mcp". */
  readonly kind = "mcp" as const;
  readonly #config: McpServerConfig;
  readonly #logger: LogMethods;
  readonly #restart: RestartPolicy;
  readonly #killGraceMs: number | undefined;
  readonly #onSpawn: ((pid: number) => void) | undefined;
  readonly #oauth: UpstreamOAuthProvider | undefined;
  readonly #listeners = new Set<() => void>();
  readonly #typeCache = new Map<string, RenderedSchema>();
  readonly #validator = new InputValidator();
  #status: NamespaceStatus = { state: "starting" };
  #catalogue: NamespaceCatalogue = { tools: [], declarations: "", warnings: [] };
  #tools = new Map<string, ToolEntry>();
  #connection: UpstreamConnection | undefined;
  #stderr = new TailBuffer();
  #generation = 0;
  #attempt: AbortController | undefined;
  #attemptDone: Promise<void> | undefined;
  #firstStart: Promise<void> | undefined;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;
  #refreshing = false;
  #refreshAgain = false;
  /** The warnings last logged, so a reconnect or refresh with the same ones logs nothing. */
  #loggedWarnings = "";

  constructor(name: string, config: McpServerConfig, options: McpNamespaceOptions = {}) {
    this.name = name;
    this.#config = config;
    this.#logger = options.logger ?? SILENT_LOGGER;
    this.#restart = new RestartPolicy(options.restart);
    this.#killGraceMs = options.killGraceMs;
    this.#onSpawn = options.onSpawn;
    if ("url" in config && config.oauth !== false && options.dataDir !== undefined) {
      this.#oauth = new UpstreamOAuthProvider({
        namespace: name,
        store: new OAuthStore(options.dataDir, name),
        settings: {
          ...(config.oauth?.clientId ? { clientId: config.oauth.clientId } : {}),
          ...(config.oauth?.clientSecret ? { clientSecret: config.oauth.clientSecret } : {}),
          ...(config.oauth?.scopes ? { scopes: config.oauth.scopes } : {}),
        },
      });
    }
    if (config.disabled) this.#status = { state: "disabled" };
  }

  /** Current status; `failed` carries the reason (with the stderr tail for stdio servers). */
  status(): NamespaceStatus {
    return { ...this.#status };
  }

  /** The last good catalogue; kept while the server is down so types still render. */
  catalogue(): NamespaceCatalogue {
    return this.#catalogue;
  }

  /** The kept end (64 KiB) of the current or last stdio child's stderr. */
  stderrTail(): string {
    return this.#stderr.text();
  }

  /** Process id of the running stdio child, if any. */
  get pid(): number | undefined {
    return this.#connection?.process?.pid;
  }

  /** The transport of the live connection (shows whether "auto" fell back to SSE). */
  get connectedVia(): "stdio" | "streamable-http" | "sse" | undefined {
    return this.#connection?.via;
  }

  /** Connects; resolves once ready or failed (never rejects). Later failures retry by themselves. */
  start(): Promise<void> {
    if (this.#config.disabled) return Promise.resolve();
    if (this.#firstStart !== undefined && !this.#stopped) return this.#firstStart;
    this.#stopped = false;
    this.#setStatus({ state: "starting" });
    this.#firstStart = this.#connect();
    return this.#firstStart;
  }

  /**
   * Ends the connection and any pending reconnect: stdin closed, then SIGTERM and SIGKILL to the
   * child's process group after the grace periods. Idempotent; leaves status `failed: stopped`.
   */
  async stop(): Promise<void> {
    if (this.#config.disabled) return;
    this.#stopped = true;
    this.#generation++;
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    this.#attempt?.abort(new Error("stopped"));
    const connection = this.#connection;
    this.#connection = undefined;
    await connection?.close().catch((error) =>
      this.#logger.warn(`Cannot close MCP server "${this.name}": ${messageOf(error)}`)
    );
    await this.#attemptDone;
    this.#firstStart = undefined;
    if (this.#status.state !== "failed" || this.#status.reason !== "stopped") {
      this.#setStatus({ state: "failed", reason: "stopped" });
    }
  }

  /** Registers `listener` for status and catalogue changes; returns its unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Calls MCP tool `tool`: validates `args` against its input schema, sends a progress token,
   * times out after `callTimeoutMs` without answer or progress and at `callMaxMs` in any case,
   * and cancels upstream (`notifications/cancelled`) on timeout or when `signal` aborts.
   * Rejects with a {@linkcode ToolCallError} of kind `NamespaceUnavailable`, `UnknownTool`,
   * `InvalidToolInput`, `ToolTimeout`, `Cancelled` or `ToolError`.
   */
  async callTool(tool: string, args: unknown, options: ToolCallOptions): Promise<ToolCallResult> {
    const connection = await this.#readyConnection(options.signal);
    const entry = this.#tools.get(tool);
    if (entry === undefined) {
      const near = nearestNames(tool, [...this.#tools.keys()]);
      throw new ToolCallError(
        "UnknownTool",
        `Unknown tool "${this.name}.${tool}": ${
          near.length > 0
            ? `nearest are ${near.map((n) => `"${n}"`).join(", ")}`
            : `"${this.name}" has ${this.#tools.size} tools`
        }`,
      );
    }
    const input = args ?? {};
    if (typeof input !== "object" || Array.isArray(input)) {
      throw new ToolCallError(
        "InvalidToolInput",
        `Invalid input for tool "${this.name}.${tool}": "/" must be an object, not ${
          Array.isArray(input) ? "an array" : typeof input
        } (type)`,
      );
    }
    const problems = entry.check?.(input) ?? [];
    if (problems.length > 0) {
      throw new ToolCallError(
        "InvalidToolInput",
        `Invalid input for tool "${this.name}.${tool}": ${problems.join("; ")}`,
      );
    }
    return await this.#send(connection, entry, input as Record<string, unknown>, options);
  }

  /** Resources and resource templates; empty when the server has no `resources` capability. */
  async listResources(): Promise<ResourceListing> {
    const client = (await this.#readyConnection()).client;
    if (client.getServerCapabilities()?.resources === undefined) {
      return { resources: [], templates: [] };
    }
    try {
      const resources = await listAll(async (cursor) => {
        const page = await client.listResources(cursor === undefined ? {} : { cursor });
        return { items: page.resources, nextCursor: page.nextCursor };
      });
      const templates = await listAll(async (cursor) => {
        const page = await client.listResourceTemplates(cursor === undefined ? {} : { cursor });
        return { items: page.resourceTemplates, nextCursor: page.nextCursor };
      }).catch((error) => {
        if (error instanceof McpError && error.code === ErrorCode.MethodNotFound) return [];
        throw error;
      });
      return {
        resources: resources.map((r) => ({
          uri: r.uri,
          name: r.name,
          ...optionalText("description", r.description),
          ...optionalText("mimeType", r.mimeType),
        })),
        templates: templates.map((t) => ({
          uriTemplate: t.uriTemplate,
          name: t.name,
          ...optionalText("description", t.description),
          ...optionalText("mimeType", t.mimeType),
        })),
      };
    } catch (error) {
      throw new ToolCallError(
        "ToolError",
        `Cannot list resources of "${this.name}": ${messageOf(error)}`,
        { cause: error },
      );
    }
  }

  readonly #resourceListeners = new Set<(uri: string) => void>();
  readonly #logListeners = new Set<(message: UpstreamLogMessage) => void>();

  /** Tells `listener` each log message the upstream sends (the proxy exposure relays them). */
  onLogMessage(listener: (message: UpstreamLogMessage) => void): () => void {
    this.#logListeners.add(listener);
    return () => this.#logListeners.delete(listener);
  }

  /** Tells `listener` the URI of each subscribed resource the upstream says has changed. */
  onResourceUpdated(listener: (uri: string) => void): () => void {
    this.#resourceListeners.add(listener);
    return () => this.#resourceListeners.delete(listener);
  }

  /**
   * Forwards one prompts/completion/subscription request upstream unchanged, so the gateway's
   * own MCP server can offer the upstream's prompts and completions under a namespaced name.
   * Rejects with `ToolError` naming the namespace when the upstream refuses.
   */
  async upstreamRequest(method: UpstreamMethod, params: Record<string, unknown>): Promise<unknown> {
    const client = (await this.#readyConnection()).client;
    const capabilities = client.getServerCapabilities() ?? {};
    const needs = UPSTREAM_CAPABILITY[method];
    if (capabilities[needs] === undefined) {
      throw new ToolCallError(
        "ToolError",
        `Namespace "${this.name}" does not offer ${needs} (its server has no "${needs}" capability)`,
      );
    }
    try {
      switch (method) {
        case "prompts/list":
          return await listAll(async (cursor) => {
            const page = await client.listPrompts(cursor === undefined ? {} : { cursor });
            return { items: page.prompts, nextCursor: page.nextCursor };
          });
        case "prompts/get":
          return await client.getPrompt(params as Parameters<Client["getPrompt"]>[0]);
        case "completion/complete":
          return await client.complete(params as Parameters<Client["complete"]>[0]);
        case "resources/subscribe":
          return await client.subscribeResource(
            params as Parameters<Client["subscribeResource"]>[0],
          );
        case "resources/unsubscribe":
          return await client.unsubscribeResource(
            params as Parameters<Client["unsubscribeResource"]>[0],
          );
      }
    } catch (error) {
      throw new ToolCallError(
        "ToolError",
        `${method} on namespace "${this.name}" failed: ${messageOf(error)}`,
        { cause: error },
      );
    }
  }

  /** Reads resource `uri`; `blob` stays base64 as MCP sends it. */
  async readResource(uri: string): Promise<ResourceContents> {
    const client = (await this.#readyConnection()).client;
    try {
      const result = await client.readResource({ uri });
      return {
        contents: result.contents.map((c) => ({
          uri: c.uri,
          ...optionalText("mimeType", c.mimeType),
          ...("text" in c && typeof c.text === "string" ? { text: c.text } : {}),
          ...("blob" in c && typeof c.blob === "string" ? { blob: c.blob } : {}),
        })),
      };
    } catch (error) {
      throw new ToolCallError(
        "ToolError",
        `Cannot read resource "${uri}" of "${this.name}": ${messageOf(error)}`,
        { cause: error },
      );
    }
  }

  async #send(
    connection: UpstreamConnection,
    entry: ToolEntry,
    input: Record<string, unknown>,
    options: ToolCallOptions,
  ): Promise<ToolCallResult> {
    const tool = entry.listing.name;
    if (options.signal.aborted) {
      throw new ToolCallError("Cancelled", `Call to "${this.name}.${tool}" was cancelled`);
    }
    // A call-scoped controller: the SDK never removes its abort listener, so linking the run's
    // signal directly would send a stray notifications/cancelled for every finished call.
    const controller = new AbortController();
    const forwardAbort = () => controller.abort(options.signal.reason);
    options.signal.addEventListener("abort", forwardAbort, { once: true });
    let hitMaximum = false;
    const hardTimer = setTimeout(() => {
      hitMaximum = true;
      controller.abort(new Error(`exceeded ${options.callMaxMs} ms`));
    }, options.callMaxMs);
    let lastProgress = 0;
    try {
      const result = await connection.client.callTool(
        { name: tool, arguments: input },
        undefined,
        {
          signal: controller.signal,
          timeout: options.callTimeoutMs,
          resetTimeoutOnProgress: true,
          maxTotalTimeout: options.callMaxMs,
          onprogress: (progress) => {
            const now = Date.now();
            const final = progress.total !== undefined && progress.progress >= progress.total;
            if (!final && now - lastProgress < PROGRESS_INTERVAL_MS) return;
            lastProgress = now;
            const update: ToolProgress = { progress: progress.progress };
            if (progress.total !== undefined) update.total = progress.total;
            if (progress.message !== undefined) update.message = progress.message;
            options.onProgress?.(update);
          },
        },
      );
      const raw: RawToolResult = Array.isArray(result.content)
        ? result as RawToolResult
        : { content: [], structuredContent: result.toolResult };
      return unwrapToolResult(raw, {
        namespace: this.name,
        tool,
        hasOutputSchema: entry.listing.outputSchema !== undefined,
      });
    } catch (error) {
      if (error instanceof ToolCallError) throw error;
      throw this.#callFailure(error, { tool, options, hitMaximum, controller, connection });
    } finally {
      clearTimeout(hardTimer);
      options.signal.removeEventListener("abort", forwardAbort);
    }
  }

  #callFailure(
    error: unknown,
    context: {
      tool: string;
      options: ToolCallOptions;
      hitMaximum: boolean;
      controller: AbortController;
      connection: UpstreamConnection;
    },
  ): ToolCallError {
    const { tool, options } = context;
    const what = `"${this.name}.${tool}"`;
    if (options.signal.aborted) {
      return new ToolCallError("Cancelled", `Call to ${what} was cancelled`, { cause: error });
    }
    const maxMessage =
      `Tool ${what} timed out: still running after the ${options.callMaxMs} ms maximum`;
    if (context.hitMaximum) return new ToolCallError("ToolTimeout", maxMessage, { cause: error });
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
      const data = error.data as { maxTotalTimeout?: unknown } | undefined;
      if (data?.maxTotalTimeout !== undefined) {
        // The SDK enforced the maximum on a progress notification without telling the server.
        context.controller.abort(new Error(`exceeded ${options.callMaxMs} ms`));
        return new ToolCallError("ToolTimeout", maxMessage, { cause: error });
      }
      return new ToolCallError(
        "ToolTimeout",
        `Tool ${what} timed out: no answer or progress for ${options.callTimeoutMs} ms`,
        { cause: error },
      );
    }
    if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
      return new ToolCallError(
        "NamespaceUnavailable",
        `MCP server "${this.name}" went away during ${what}: ${this.#reasonOrDefault()}`,
        { cause: error },
      );
    }
    const stepUp = this.#oauth?.stepUpScope;
    if (stepUp && /\b403\b/.test(messageOf(error))) {
      // This call needs more than the grant allows; the rest of the namespace still works.
      return new ToolCallError(
        "ToolError",
        `Tool ${what} needs the OAuth scope "${stepUp}", beyond what "${this.name}" was granted: ` +
          `run gateway auth login ${this.name} to grant it`,
        { cause: error },
      );
    }
    const login = findLoginRequired(error) ?? this.#refusedLogin(error);
    if (login) {
      // Tokens expired or were revoked and could not be refreshed: no call can succeed now.
      if (this.#connection === context.connection) {
        this.#connection = undefined;
        void context.connection.close().catch(() => {});
      }
      this.#needsLogin(login);
      return new ToolCallError("NamespaceUnavailable", login.message, { cause: error });
    }
    if (error instanceof McpError) {
      return new ToolCallError("ToolError", `Tool ${what} failed: ${error.message}`, {
        cause: error,
      });
    }
    if (error instanceof Error && /ZodError/.test(error.name)) {
      return new ToolCallError("ToolError", `Tool ${what} returned a malformed result`, {
        cause: error,
      });
    }
    // A transport failure (HTTP request refused, stdin gone): the connection is not usable.
    this.#connectionLost(context.connection, `lost its connection: ${messageOf(error)}`);
    return new ToolCallError(
      "NamespaceUnavailable",
      `MCP server "${this.name}" went away during ${what}: ${messageOf(error)}`,
      { cause: error },
    );
  }

  async #readyConnection(signal?: AbortSignal): Promise<UpstreamConnection> {
    if (this.#status.state === "starting" && this.#firstStart !== undefined) {
      await untilSettledOrAborted(this.#firstStart, signal);
      if (signal?.aborted) {
        throw new ToolCallError(
          "Cancelled",
          `Call to "${this.name}" was cancelled while it started`,
        );
      }
    }
    const connection = this.#connection;
    if (connection === undefined || this.#status.state !== "ready") {
      throw new ToolCallError(
        "NamespaceUnavailable",
        `Namespace "${this.name}" is unavailable: ${this.#reasonOrDefault()}`,
      );
    }
    return connection;
  }

  #reasonOrDefault(): string {
    const status = this.#status;
    return status.state === "failed"
      ? status.reason
      : status.state === "disabled"
      ? "disabled in the configuration"
      : status.state === "starting"
      ? "still starting"
      : "connection closed";
  }

  #connect(): Promise<void> {
    const done = this.#attemptOnce();
    this.#attemptDone = done;
    return done;
  }

  async #attemptOnce(): Promise<void> {
    const generation = ++this.#generation;
    const attempt = new AbortController();
    this.#attempt = attempt;
    const stderr = new TailBuffer();
    this.#stderr = stderr;
    const timeoutMs = this.#config.startTimeoutMs;
    const timer = setTimeout(
      () => attempt.abort(new Error(`did not finish initialize within ${timeoutMs} ms`)),
      timeoutMs,
    );
    // Clients of this attempt whose connection closed ("auto" may open and drop one first).
    const closed = new WeakSet<Client>();
    let connection: UpstreamConnection | undefined;
    try {
      connection = await connectUpstream(this.name, this.#config, {
        signal: attempt.signal,
        stderr,
        logger: this.#logger,
        ...(this.#killGraceMs === undefined ? {} : { killGraceMs: this.#killGraceMs }),
        ...(this.#onSpawn ? { onSpawn: this.#onSpawn } : {}),
        ...(this.#oauth ? { oauth: this.#oauth } : {}),
        setup: (client) => {
          this.#installHandlers(client);
          client.onclose = () => {
            closed.add(client);
            this.#onClientClosed(client);
          };
        },
      });
      const loaded = await this.#load(connection.client, attempt.signal);
      if (closed.has(connection.client)) {
        throw new Error("closed the connection while listing tools");
      }
      if (generation !== this.#generation) {
        await connection.close();
        return;
      }
      this.#connection = connection;
      this.#apply(loaded);
      this.#restart.onReady();
      this.#logger.info(
        `MCP server "${this.name}" ready via ${connection.via}: ${this.#tools.size} tools`,
      );
      this.#setStatus({ state: "ready" });
    } catch (error) {
      await connection?.close().catch(() => {});
      if (generation !== this.#generation) return;
      const login = findLoginRequired(error) ?? this.#refusedLogin(error);
      if (login) {
        this.#needsLogin(login);
        return;
      }
      const detail = attempt.signal.aborted ? messageOf(attempt.signal.reason) : messageOf(error);
      const decision = this.#restart.onFailure("start", Date.now());
      this.#fail(`MCP server "${this.name}" failed to start: ${detail}`, decision.delayMs, stderr);
    } finally {
      clearTimeout(timer);
      if (this.#attempt === attempt) this.#attempt = undefined;
    }
  }

  #installHandlers(client: Client): void {
    client.onerror = (error) => this.#logger.warn(`MCP server "${this.name}": ${messageOf(error)}`);
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.#refresh(client));
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => this.#refresh(client));
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      for (const listener of this.#resourceListeners) listener(notification.params.uri);
    });
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      const { level, logger, data } = notification.params;
      for (const listener of this.#logListeners) {
        listener({ level, ...(logger === undefined ? {} : { logger }), data });
      }
      const text = typeof data === "string" ? data : JSON.stringify(data);
      this.#logger.debug(
        `[${this.name}${logger === undefined ? "" : `/${logger}`}] ${level}: ${text}`,
      );
    });
  }

  async #load(
    client: Client,
    signal?: AbortSignal,
  ): Promise<{ catalogue: NamespaceCatalogue; tools: Map<string, ToolEntry> }> {
    const listings = await listAll(async (cursor) => {
      const page = await client.listTools(cursor === undefined ? {} : { cursor }, {
        ...(signal === undefined ? {} : { signal }),
      });
      return { items: page.tools, nextCursor: page.nextCursor };
    });
    const warnings: string[] = [];
    let prompts: { name: string; description: string }[] | undefined;
    if (client.getServerCapabilities()?.prompts !== undefined) {
      try {
        const listed = await listAll(async (cursor) => {
          const page = await client.listPrompts(cursor === undefined ? {} : { cursor });
          return { items: page.prompts, nextCursor: page.nextCursor };
        });
        prompts = listed.map((p) => ({ name: p.name, description: p.description ?? "" }));
      } catch (error) {
        warnings.push(`Cannot list prompts of "${this.name}": ${messageOf(error)}`);
      }
    }
    const tools = new Map<string, ToolEntry>();
    const listingsForCatalogue: McpToolListing[] = [];
    for (const tool of listings) {
      if (tool.execution?.taskSupport === "required") {
        warnings.push(
          `Tool "${this.name}.${tool.name}" is left out: it requires task-based execution`,
        );
        continue;
      }
      const listing: McpToolListing = {
        name: tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputSchema,
        outputSchema: tool.outputSchema,
        annotations: tool.annotations,
      };
      let check: ArgumentCheck | undefined;
      try {
        check = this.#validator.compile(tool.inputSchema);
      } catch (error) {
        warnings.push(
          `Arguments of tool "${this.name}.${tool.name}" are not validated: ${messageOf(error)}`,
        );
      }
      tools.set(tool.name, { listing, check });
      listingsForCatalogue.push(listing);
    }
    const catalogue = await buildCatalogue(this.name, {
      tools: listingsForCatalogue,
      ...(prompts === undefined ? {} : { prompts }),
      cache: this.#typeCache,
    });
    catalogue.warnings.push(...warnings);
    return { catalogue, tools };
  }

  #apply(loaded: { catalogue: NamespaceCatalogue; tools: Map<string, ToolEntry> }): void {
    this.#tools = loaded.tools;
    this.#catalogue = loaded.catalogue;
    const warnings = JSON.stringify(loaded.catalogue.warnings);
    if (warnings === this.#loggedWarnings) return;
    this.#loggedWarnings = warnings;
    for (const warning of loaded.catalogue.warnings) this.#logger.warn(warning);
  }

  /** Re-lists tools and prompts after a list_changed notification; one refresh at a time. */
  async #refresh(client: Client): Promise<void> {
    if (this.#refreshing) {
      this.#refreshAgain = true;
      return;
    }
    this.#refreshing = true;
    try {
      do {
        this.#refreshAgain = false;
        if (this.#connection?.client !== client) return;
        try {
          const loaded = await this.#load(client);
          if (this.#connection?.client !== client) return;
          this.#apply(loaded);
          this.#logger.info(`MCP server "${this.name}" tools changed: ${this.#tools.size} tools`);
          this.#notify();
        } catch (error) {
          this.#logger.warn(`Cannot refresh tools of "${this.name}": ${messageOf(error)}`);
        }
      } while (this.#refreshAgain);
    } finally {
      this.#refreshing = false;
    }
  }

  #onClientClosed(client: Client): void {
    const connection = this.#connection;
    if (this.#stopped || connection?.client !== client) return;
    const exit = connection.process?.exitStatus;
    this.#connectionLost(
      connection,
      exit === undefined ? "closed the connection" : describeExit(exit),
    );
  }

  /** A ready connection died: fail, count a crash, and schedule the reconnect. */
  #connectionLost(connection: UpstreamConnection, detail: string): void {
    if (this.#stopped || this.#connection !== connection) return;
    this.#connection = undefined;
    void connection.close().catch(() => {});
    const decision = this.#restart.onFailure("crash", Date.now());
    let reason = `MCP server "${this.name}" ${detail}`;
    if (decision.breakerOpen) {
      const { breakerCrashes, breakerWindowMs } = this.#restart.options;
      reason += ` (${breakerCrashes} crashes within ${seconds(breakerWindowMs)}: held down)`;
    }
    this.#fail(reason, decision.delayMs, this.#stderr);
  }

  /**
   * A login is needed: failed, without retries (a retry cannot log in); `gateway auth login`
   * reconnects the namespace when it has stored new tokens.
   */
  /**
   * A 401 that survived the SDK's own re-authorization (a token the server will never take,
   * e.g. issued for another audience) is a login problem too, with the server's reason.
   */
  #refusedLogin(error: unknown): LoginRequiredError | null {
    const refusal = this.#oauth?.lastRefusal;
    if (!refusal || !/\b401\b|unauthori[sz]ed/i.test(messageOf(error))) return null;
    return new LoginRequiredError(this.name, refusal);
  }

  #needsLogin(error: LoginRequiredError): void {
    this.#logger.warn(error.message);
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    this.#setStatus({ state: "failed", reason: error.message });
  }

  #fail(reason: string, retryInMs: number, stderr: TailBuffer): void {
    const tail = stderr.lastLines({ lines: 5, maxChars: 1000 });
    const full = `${reason}${tail === "" ? "" : `; stderr: ${tail}`}; next attempt in ${
      seconds(retryInMs)
    }`;
    this.#logger.warn(full);
    this.#setStatus({ state: "failed", reason: full });
    clearTimeout(this.#retryTimer);
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      if (!this.#stopped) void this.#connect();
    }, retryInMs);
    Deno.unrefTimer(this.#retryTimer);
  }

  #setStatus(status: NamespaceStatus): void {
    this.#status = status;
    this.#notify();
  }

  #notify(): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener();
      } catch (error) {
        this.#logger.error(`A change listener of "${this.name}" threw: ${messageOf(error)}`);
      }
    }
  }
}

/** Follows `nextCursor` until the last page. */
async function listAll<T>(
  page: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string | undefined }>,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 1000; pages++) {
    const result = await page(cursor);
    items.push(...result.items);
    if (result.nextCursor === undefined || result.nextCursor === cursor) break;
    cursor = result.nextCursor;
  }
  return items;
}

async function untilSettledOrAborted(promise: Promise<unknown>, signal?: AbortSignal) {
  if (signal === undefined) return await promise;
  if (signal.aborted) return;
  let onAbort = () => {};
  const aborted = new Promise<void>((resolve) => {
    onAbort = () => resolve();
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    await Promise.race([promise, aborted]);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

function optionalText<K extends string>(key: K, value: unknown): { [P in K]?: string } {
  return typeof value === "string" ? { [key]: value } as { [P in K]?: string } : {};
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
