/**
 * The life of one MCP upstream's connection: the first connect within `startTimeoutMs` (the
 * protocol era from the kept verdict, or asked of the server once and kept), crash detection,
 * back-off reconnects and the breaker, login-required states, `list_changed` refreshes of the
 * cached catalogue, and the status and change listeners that report it all: one
 * state machine over the same fields — the live connection, its generation, the status, the
 * retry timer — that every transition reads and writes.
 * @module
 */

import type { McpServerConfig } from "../../config/gateway_config.ts";
import { ChangeListeners } from "../change_listeners.ts";
import { type NamespaceCatalogue, type NamespaceStatus, ToolCallError } from "../namespace.ts";
import { connectUpstream, type UpstreamConnection } from "./connect_upstream.ts";
import type { EraVerdicts } from "./era_verdicts.ts";
import type { InputValidator } from "../kind_support/input_validator.ts";
import { type LoadedMcpTools, loadMcpTools, type McpToolEntry } from "./load_mcp_tools.ts";
import type { LogMethods } from "../../logger.ts";
import type { Client, PriorDiscovery } from "./mcp_sdk.ts";
import type { McpCallHost } from "./mcp_tool_call.ts";
import { RestartPolicy, type RestartPolicyOptions } from "../../process/restart_policy.ts";
import { describeExit } from "../../process/describe_exit.ts";
import { TailBuffer } from "./tail_buffer.ts";
import { UpstreamNotifications } from "./upstream_notifications.ts";
import type { UpstreamLogMessage } from "../namespace.ts";
import { ParkedCalls } from "./parked_calls.ts";
import type { ProtocolLog } from "./protocol_log.ts";
import {
  findLoginRequired,
  type LoginRequiredError,
  type UpstreamOAuthProvider,
} from "./upstream_oauth_provider.ts";
import { messageOf } from "../../protocol/message_of.ts";

/** Settings of a {@linkcode McpConnectionSupervisor}. */
export interface McpConnectionSupervisorOptions {
  logger: LogMethods;
  /** Back-off and breaker tuning. @default 0.5 s doubling to 30 s; 5 crashes in 60 s hold it 5 min */
  restart?: Partial<RestartPolicyOptions> | undefined;
  /** For stdio servers: grace after closing stdin, and again after SIGTERM. @default 2000 */
  killGraceMs?: number | undefined;
  /** Told the pid of every stdio child started (the process ledger). */
  onSpawn?: ((pid: number) => void) | undefined;
  /** Authorizes HTTP connections; absent for stdio servers and without a data dir. */
  oauth?: UpstreamOAuthProvider | undefined;
  /** The kept protocol eras; absent: the server is asked at every connect. */
  eras?: EraVerdicts | undefined;
  /** Told every message of every connection (the dashboard's protocol log). */
  protocolLog?: ProtocolLog | undefined;
}

/**
 * Keeps one upstream connected: `start()` resolves once ready or failed and never rejects; a
 * lost connection marks it failed (with the stderr tail) and reconnects with back-off. Calls
 * ask it for the live connection ({@linkcode readyConnection}) and report back when a call
 * finds the connection dead ({@linkcode McpCallHost}).
 */
export class McpConnectionSupervisor implements McpCallHost {
  /** The `mcpServers` key. */
  readonly name: string;
  readonly #config: McpServerConfig;
  readonly #options: McpConnectionSupervisorOptions;
  readonly #logger: LogMethods;
  readonly #restart: RestartPolicy;
  readonly #listeners: ChangeListeners;
  /**
   * Made at the first tool listing: ajv (slow to evaluate) then loads after the server
   * answers, not on its start path.
   */
  #validator: InputValidator | undefined;
  /** Log and resource-update listeners, kept across reconnects. */
  readonly notifications: UpstreamNotifications;
  /** Calls of a 2025 connection waiting for a host's answer (a namespace served as itself). */
  readonly parked: ParkedCalls = new ParkedCalls();
  #status: NamespaceStatus = { state: "starting" };
  #catalogue: NamespaceCatalogue = { tools: [], declarations: "", warnings: [] };
  #tools = new Map<string, McpToolEntry>();
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

  constructor(name: string, config: McpServerConfig, options: McpConnectionSupervisorOptions) {
    this.name = name;
    this.#config = config;
    this.#options = options;
    this.#logger = options.logger;
    this.#restart = new RestartPolicy(options.restart);
    this.notifications = new UpstreamNotifications(name, options.logger);
    this.#listeners = new ChangeListeners(name, options.logger);
    if (config.disabled) this.#status = { state: "disabled" };
  }

  /** A copy of the current status: later changes never alter what a caller holds. */
  status(): NamespaceStatus {
    return { ...this.#status };
  }

  /** The last good catalogue; kept while the server is down so types still render. */
  catalogue(): NamespaceCatalogue {
    return this.#catalogue;
  }

  /** The current tool listing by original name, with each tool's argument check. */
  get tools(): ReadonlyMap<string, McpToolEntry> {
    return this.#tools;
  }

  /** The kept end (64 KiB) of the current or last stdio child's stderr. */
  stderrTail(): string {
    return this.#stderr.text();
  }

  /** The live connection, if any. */
  get connection(): UpstreamConnection | undefined {
    return this.#connection;
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

  /** Ends the connection and any pending reconnect; idempotent; leaves `failed: stopped`. */
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
    return this.#listeners.add(listener);
  }

  /**
   * The live connection when the namespace is ready now, else undefined: lets a call on a
   * ready namespace be sent without waiting a turn ({@linkcode readyConnection} otherwise).
   */
  get liveConnection(): UpstreamConnection | undefined {
    return this.#status.state === "ready" ? this.#connection : undefined;
  }

  /**
   * The live connection, waiting for a first start in progress (unless `signal` aborts:
   * `Cancelled`). Rejects with `NamespaceUnavailable` and the reason when there is none.
   */
  async readyConnection(signal?: AbortSignal): Promise<UpstreamConnection> {
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
        `Namespace "${this.name}" is unavailable: ${this.unavailableReason()}`,
      );
    }
    return connection;
  }

  /** Why the namespace is not ready, in words. */
  unavailableReason(): string {
    const status = this.#status;
    return status.state === "failed"
      ? status.reason
      : status.state === "disabled"
      ? "disabled in the configuration"
      : status.state === "starting"
      ? "still starting"
      : "connection closed";
  }

  /** The OAuth scope a 403 asks for beyond the grant, if the server named one. */
  stepUpScope(): string | null {
    return this.#options.oauth?.stepUpScope ?? null;
  }

  /** The login problem behind `error`, or null when it is none. */
  loginRequired(error: unknown): LoginRequiredError | null {
    return this.#options.oauth?.loginProblem(error) ?? findLoginRequired(error);
  }

  /** A call found the login gone: drop the connection and wait for `gateway auth login`. */
  dropForLogin(connection: UpstreamConnection, login: LoginRequiredError): void {
    if (this.#connection === connection) {
      this.#connection = undefined;
      void connection.close().catch(() => {});
    }
    this.#needsLogin(login);
  }

  /** Logs what a call did on the user's behalf. */
  note(message: string): void {
    this.#logger.info(`MCP server "${this.name}" ${message}`);
  }

  /** Tells `listener` the upstream's log messages while a host round runs. */
  watchLogs(listener: (message: UpstreamLogMessage) => void): () => void {
    return this.notifications.watchLogs(listener);
  }

  /** A ready connection died: fail, count a crash, and schedule the reconnect. */
  connectionLost(connection: UpstreamConnection, detail: string): void {
    if (this.#stopped || this.#connection !== connection) return;
    this.#connection = undefined;
    void connection.close().catch(() => {});
    const decision = this.#restart.onFailure("crash", Date.now());
    let reason = `MCP server "${this.name}" ${detail}`;
    if (decision.breakerOpen) {
      reason += ` (${this.#restart.breakerReason()})`;
    }
    this.#fail(reason, decision.delayMs, this.#stderr);
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
      let loaded: LoadedMcpTools;
      ({ connection, loaded } = await this.#connectAndLoad(attempt.signal, stderr, closed));
      if (generation !== this.#generation) {
        await connection.close();
        return;
      }
      this.#connection = connection;
      this.#apply(loaded);
      this.#restart.onReady();
      this.#logger.info(
        `MCP server "${this.name}" ready via ${connection.via} (${
          connection.era === "modern" ? connection.client.getNegotiatedProtocolVersion() : "2025"
        } era): ${this.#tools.size} tools`,
      );
      this.#setStatus({ state: "ready" });
      if (connection.era === "modern") this.#listen(connection);
    } catch (error) {
      await connection?.close().catch(() => {});
      if (generation !== this.#generation) return;
      const login = this.loginRequired(error);
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

  /**
   * Connects and lists the tools. The era comes from the kept verdict when there is a fresh
   * one; a verdict that proves wrong (the connect or the listing fails) is forgotten and the
   * server asked again at once. A verdict reached by asking is kept once the listing worked.
   */
  async #connectAndLoad(
    signal: AbortSignal,
    stderr: TailBuffer,
    closed: WeakSet<Client>,
  ): Promise<{ connection: UpstreamConnection; loaded: LoadedMcpTools }> {
    const eras = this.#options.eras;
    const prior = eras?.prior(this.name, this.#config);
    try {
      return await this.#connectOnce(signal, stderr, closed, prior);
    } catch (error) {
      if (prior === undefined || signal.aborted || this.loginRequired(error)) throw error;
      eras?.forget(this.name);
      this.#logger.info(
        `MCP server "${this.name}" did not start as a ${prior.kind}-era server as last time (${
          messageOf(error)
        }): asking it which era it speaks`,
      );
      return await this.#connectOnce(signal, stderr, closed, undefined);
    }
  }

  async #connectOnce(
    signal: AbortSignal,
    stderr: TailBuffer,
    closed: WeakSet<Client>,
    prior: PriorDiscovery | undefined,
  ): Promise<{ connection: UpstreamConnection; loaded: LoadedMcpTools }> {
    const { killGraceMs, onSpawn, oauth, protocolLog } = this.#options;
    let connection: UpstreamConnection | undefined;
    try {
      connection = await connectUpstream(this.name, this.#config, {
        signal,
        stderr,
        logger: this.#logger,
        ...(killGraceMs === undefined ? {} : { killGraceMs }),
        ...(onSpawn ? { onSpawn } : {}),
        ...(oauth ? { oauth } : {}),
        ...(protocolLog ? { protocolLog } : {}),
        ...(prior === undefined ? {} : { prior }),
        probeTimeoutMs: Math.min(5000, Math.max(500, this.#config.startTimeoutMs / 3)),
        setupListener: (listener, main) => {
          this.notifications.install(listener, () => void this.#refresh(main));
        },
        setup: (client, questions) => {
          this.notifications.install(client, () => void this.#refresh(client), questions);
          client.onclose = () => {
            closed.add(client);
            this.#onClientClosed(client);
          };
        },
      });
      const loaded = await this.#load(connection.client, signal);
      if (closed.has(connection.client)) {
        throw new Error("closed the connection while listing tools");
      }
      if (!connection.fromPrior) {
        this.#options.eras?.remember(this.name, this.#config, connection.discover);
      }
      return { connection, loaded };
    } catch (error) {
      await connection?.close().catch(() => {});
      throw error;
    }
  }

  /** Opens the change stream of a 2026-07-28 connection (on its own client over HTTP). */
  #listen(connection: UpstreamConnection): void {
    const current = () => this.#connection === connection;
    void (async () => {
      let client = connection.client;
      if (connection.listenVia !== undefined) {
        try {
          client = await connection.listenVia();
        } catch (error) {
          if (!current()) return;
          this.#logger.warn(
            `Cannot open the change stream of "${this.name}": ${
              messageOf(error)
            }; its tool list is read again only on a reconnect`,
          );
          return;
        }
      }
      await this.notifications.listen(client, current, () => void this.#refresh(connection.client));
    })();
  }

  async #load(client: Client, signal?: AbortSignal): Promise<LoadedMcpTools> {
    this.#validator ??= new (await import("../kind_support/input_validator.ts")).InputValidator();
    return await loadMcpTools(client, this.name, {
      validator: this.#validator,
      ...(signal === undefined ? {} : { signal }),
    });
  }

  #apply(loaded: LoadedMcpTools): void {
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
          this.#listeners.notify();
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
    this.connectionLost(
      connection,
      exit === undefined ? "closed the connection" : describeExit(exit),
    );
  }

  /**
   * A login is needed: failed, without retries (a retry cannot log in); `gateway auth login`
   * reconnects the namespace when it has stored new tokens.
   */
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
    this.#listeners.notify();
  }
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

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}
