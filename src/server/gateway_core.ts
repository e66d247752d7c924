/**
 * The running gateway's parts, wired once: config, namespaces, runner, checker, history and
 * workflows. It owns start-up order, reload of the root, and shutdown order; RPC methods and
 * the script runner are handed only the parts they use (`server_parts.ts`), never the core. Each part's logic lives in its own module: tool calls in
 * tool_dispatcher.ts, namespaces in namespace_setup.ts, the root watcher and config diff in
 * root_watcher.ts, the finished-runs cache, history rows and discovery views beside them.
 * It is the one place the parts meet; what each part does is elsewhere.
 * @module
 */

import { join } from "node:path";
import type { LoadedConfig } from "../config/config_loader.ts";
import { loadRootConfig } from "../config/config_loader.ts";
import type { GatewayConfig } from "../config/gateway_config.ts";
import type { Logger } from "../logger.ts";
import type { CatalogueSnapshot } from "../protocol/catalogue.ts";
import type { SearchIndex } from "../discovery/search.ts";
import { CatalogueVersions } from "../discovery/catalogue_versions.ts";
import { NamespaceRegistry } from "../namespaces/namespace_registry.ts";
import { renderScriptGlobals } from "../namespaces/render_types.ts";
import { Approvals } from "./approvals.ts";
import { CallPolicy } from "./call_policy.ts";
import type { ProcessLedger } from "../process/process_ledger.ts";
import { SecretMask } from "../config/secret_mask.ts";
import { GatewayTelemetry } from "../telemetry/gateway_telemetry.ts";
import { RESULT_HOOK, type ScriptRunner } from "../exec/script_runner.ts";
import { ScriptCheckerWorker } from "../exec/script_checker_worker.ts";
import type { NamedScript } from "../exec/named_scripts.ts";
import type { GatewayDatabase } from "../store/gateway_database.ts";
import type { GatewayStore, HistoryStore } from "../store/gateway_store.ts";
import type { SharedRunState } from "./shared_run_state.ts";
import { WorkflowsOnDemand } from "./workflows_on_demand.ts";
import type { DiscoveryData } from "../protocol/channel_messages.ts";
import type { Diagnostic } from "../protocol/run_document.ts";
import type { NamespaceSummary } from "../protocol/wire_views.ts";
import type { GatewayPaths } from "./gateway_paths.ts";
import { type OpenedState, openGatewayState } from "./gateway_state.ts";
import { ToolDispatcher } from "./tool_dispatcher.ts";
import { NamespaceSetup } from "./namespace_setup.ts";
import { ProtocolLogs } from "../namespaces/mcp/protocol_log.ts";
import { diffConfig, RootWatcher } from "./root_watcher.ts";
import { type RunEvent, RunTracker, type ToolCallEvent } from "./run_tracker.ts";
import { createScriptRunner } from "./gateway_runner.ts";
import { idlePolicyRules } from "./config_warnings.ts";
import { namespacesUsed, type ScriptUsage, USES_EVERYTHING } from "../exec/script_analysis.ts";
import { CatalogueViews, type LiveCatalogue } from "./catalogue_views.ts";
import { CheckedShapes } from "./checked_shapes.ts";

export type { GatewayPaths };
export type { RunEvent, ToolCallEvent };

/** Longest a run waits for namespaces that are still starting before it is checked. */
const STARTING_WAIT_MS = 15_000;

/** The gateway's state and behaviour, independent of how requests arrive. */
export class GatewayCore implements LiveCatalogue {
  readonly paths: GatewayPaths;
  readonly log: Logger;
  readonly registry = new NamespaceRegistry();
  /** Calls held by `ask` policy rules. */
  readonly approvals: Approvals;
  /** The database, for workflow sessions. */
  readonly database: GatewayDatabase;
  /** Run state shared with other instances on one PostgreSQL; null for SQLite. */
  readonly shared: SharedRunState | null;
  /** Workflow sessions, loaded on first use. */
  readonly workflows: WorkflowsOnDemand;
  /** The script runner. */
  readonly runner: ScriptRunner;
  /** Each MCP namespace's raw traffic, for the dashboard's protocol log, secrets masked. */
  readonly protocolLogs = new ProtocolLogs({ mask: (text) => this.outgoingMask.mask(text) });
  #loaded: LoadedConfig;
  readonly #store: GatewayStore;
  readonly #checker: ScriptCheckerWorker;
  readonly #dispatcher: ToolDispatcher;
  readonly #checkedShapes: CheckedShapes;
  readonly #namespaces: NamespaceSetup;
  readonly #rootWatcher: RootWatcher;
  readonly #views: CatalogueViews;
  readonly #tracker: RunTracker;
  readonly #ledger: ProcessLedger;
  readonly #runtimeDir: string;
  #globalsVersion = 0;
  #globalsReady: Promise<void> = Promise.resolve();
  /** Why the last config reload failed (the last good config stays in force), or null. */
  #reloadError: string | null = null;
  /** The gateway's own token: masked wherever secrets are. */
  readonly #token: string | null;
  /** Spans and metrics, exported only when `OTEL_DENO` is set. */
  readonly #telemetry = new GatewayTelemetry();

  /**
   * Opens the state (data dir, history store, process ledger), wires the parts and starts
   * them; resolves once the gateway can answer (namespaces keep starting on their own).
   */
  static async start(
    paths: GatewayPaths,
    loaded: LoadedConfig,
    log: Logger,
    options: {
      token?: string;
      /**
       * The type checker, when the server started it ahead of the core (its process boots
       * while the core loads); made here otherwise.
       */
      checker?: ScriptCheckerWorker;
    } = {},
  ): Promise<GatewayCore> {
    const approvals = new Approvals();
    const token = options.token ?? null;
    const state = await openGatewayState(paths, loaded, { token, approvals, log });
    const core = new GatewayCore(paths, loaded, log, approvals, token, state, options.checker);
    await core.#begin();
    return core;
  }

  private constructor(
    paths: GatewayPaths,
    loaded: LoadedConfig,
    log: Logger,
    approvals: Approvals,
    token: string | null,
    state: OpenedState,
    checker: ScriptCheckerWorker | undefined,
  ) {
    this.paths = paths;
    this.#loaded = loaded;
    this.log = log;
    this.approvals = approvals;
    this.#token = token;
    this.database = state.database;
    this.#store = state.store;
    this.shared = state.shared;
    this.#ledger = state.ledger;
    this.#runtimeDir = state.runtimeDir;
    this.workflows = new WorkflowsOnDemand(state.store.workflows, paths.root.dir);
    this.#checker = checker ?? ScriptCheckerWorker.start({
      cacheDir: join(paths.dataDir, "cache"),
      idleMs: () => this.config.exec.checkerIdleMs,
    });
    const policy = new CallPolicy({
      rules: () => this.config.policy,
      approvals,
      log: (message, fields) => this.log.warn(message, fields),
      root: paths.root.dir,
    });
    this.#checkedShapes = new CheckedShapes(
      join(paths.dataDir, "cache", "checked-shapes.json"),
      { warn: (message) => log.warn(message) },
    );
    this.#dispatcher = new ToolDispatcher({
      registry: this.registry,
      policy,
      config: () => this.config,
      check: () => async (source) => {
        // The checker is given a change the registry has not announced yet first: its verdict
        // is kept under the types the dispatcher sees now, so it must be made against them.
        if (this.registry.changePending || this.#views.stale) this.#catalogueChanged();
        await this.#globalsReady;
        return await this.#checker.check(source);
      },
      checkedShapes: this.#checkedShapes,
    });
    this.#namespaces = new NamespaceSetup({
      paths,
      registry: this.registry,
      log,
      loaded: () => this.#loaded,
      onSpawn: (pid) => this.#ledger.record(pid),
      protocolLogs: this.protocolLogs,
      // The first runs' own work: the checker's warm-up for a typed one, then the runs.
      startupWork: async () => {
        await this.#checker.warming();
        await this.#tracker.idle();
      },
    });
    this.#views = new CatalogueViews(this.registry, join(paths.root.dir, "scripts"), log);
    this.#rootWatcher = new RootWatcher(paths.root, {
      log,
      onConfigChange: () => this.#reloadConfig(),
      onScriptsChange: () => this.#views.refreshScripts().then(() => this.#catalogueChanged()),
    });
    this.#tracker = new RunTracker({
      runner: () => this.runner,
      shared: this.shared,
      maxQueuedRuns: () => this.config.exec.maxQueuedRuns,
    });
    this.runner = createScriptRunner({
      paths,
      runsDir: state.runsDir,
      log,
      config: () => this.config,
      registry: this.registry,
      shared: this.shared,
      history: state.store.history,
      outgoingMask: this.outgoingMask,
      // The waits for namespaces still starting are the core's: it owns their start-up.
      catalogue: this,
      dispatcher: this.#dispatcher,
      ledger: state.ledger,
      telemetry: this.#telemetry,
      checker: this.#checker,
      toolCallWatcher: (runId) => this.#tracker.toolCallWatcher(runId),
    });
  }

  /** Starts the parts that run on their own: pool, namespaces, watchers. */
  async #begin(): Promise<void> {
    this.#pruneHistory();
    this.#telemetry.observe(() => {
      const namespaces: Record<string, number> = {};
      for (const ns of this.registry.list()) {
        const state = ns.status().state;
        namespaces[state] = (namespaces[state] ?? 0) + 1;
      }
      return { queued: this.runner.queuedCount, active: this.runner.activeCount, namespaces };
    });
    this.registry.onChange(() => this.#catalogueChanged());
    await this.#views.refreshScripts();
    await this.#namespaces.startAll();
    this.#catalogueChanged();
    this.#rootWatcher.start();
    setTimeout(() => this.runner.warm(), 0); // the pool fills once the server answers
  }

  /** The configuration in force (the last good one). */
  get config(): GatewayConfig {
    return this.#loaded.config;
  }

  /** Values to mask in logs and history: the config's secrets and the gateway's own token. */
  secrets(): string[] {
    return [...(this.#token === null ? [] : [this.#token]), ...this.#configSecrets()];
  }

  #configSecretsFrom: LoadedConfig | null = null;
  #configSecretsList: string[] = [];
  /** `${env:…}` expansions and `history.redact`, one array per loaded config. */
  #configSecrets(): string[] {
    if (this.#configSecretsFrom !== this.#loaded) {
      this.#configSecretsFrom = this.#loaded;
      this.#configSecretsList = [...this.#loaded.secrets, ...this.#loaded.config.history.redact];
    }
    return this.#configSecretsList;
  }

  /**
   * Masks the config's secrets in everything that leaves the server: HTTP bodies, WebSocket
   * frames, messages to runners. Not the token, which the dashboard page
   * legitimately carries; no server answer is built from it.
   */
  readonly outgoingMask = new SecretMask(() => this.#configSecrets());

  /** The history store: `gateway.db`, or PostgreSQL when config `store.postgres` is set. */
  get history(): HistoryStore {
    return this.#store.history;
  }

  #pruneHistory(): void {
    this.#store.history.prune({
      maxRuns: this.config.history.maxRuns,
      maxAgeDays: this.config.history.maxAgeDays,
    }).catch((error) => this.log.error("history retention failed", { error: String(error) }));
  }

  /**
   * What is wrong with the configuration in force, for `gateway tools`/`status`: warnings from
   * loading it (unset variables, ignored keys), name clashes, policy rules that match nothing.
   */
  configWarnings(): string[] {
    return [
      ...this.#loaded.warnings,
      ...this.#namespaces.clashes(),
      ...idlePolicyRules(this.config.policy, this.registry),
    ];
  }

  /** A failed reload and the config's warnings, added to `/health` for the token holder. */
  healthExtras(): { configError?: string; configWarnings: string[] } {
    return {
      ...(this.#reloadError !== null ? { configError: this.#reloadError } : {}),
      configWarnings: this.configWarnings(),
    };
  }

  /** Why the last config reload failed, or null when the config in force is the file's. */
  get reloadError(): string | null {
    return this.#reloadError;
  }

  /** Named scripts of the root, as last listed. */
  scripts(): NamedScript[] {
    return this.#views.scripts;
  }

  #catalogueChanged(): void {
    this.#views.invalidate();
    this.#dispatcher.catalogueChanged();
    const version = ++this.#globalsVersion;
    const dts = renderScriptGlobals(this.snapshot());
    this.#globalsReady = this.#checker.setGlobals(dts).catch((error) => {
      if (version === this.#globalsVersion) {
        this.log.error("type checker rejected the generated globals", { error: String(error) });
      }
    });
  }

  /**
   * Waits (bounded) for namespaces still starting and for the checker to hold the current
   * types, so a run right after start-up sees every tool that is about to be ready.
   */
  async catalogueReady(usage?: ScriptUsage): Promise<void> {
    const used = usage === undefined ? undefined : namespacesUsed(usage, this.registry.typed());
    // A run that may use an MCP namespace waits for it, not for the rest of the start.
    if (used === undefined || [...used].some((name) => this.registry.get(name)?.kind === "mcp")) {
      this.#namespaces.releaseUpstreams();
    }
    await this.registry.settled(STARTING_WAIT_MS, used);
    if (this.registry.changePending || this.#views.stale) this.#catalogueChanged();
    await this.#globalsReady;
  }

  /** The catalogue as discovery and the type renderer see it; cached until it changes. */
  snapshot(): CatalogueSnapshot {
    return this.#views.snapshot();
  }

  /** The search index of the current snapshot, built once per catalogue change. */
  searchIndex(): SearchIndex {
    return this.#views.searchIndex();
  }

  /** The catalogue versions handed out, for `catalog` with `since` (what changed). */
  readonly catalogueVersions = new CatalogueVersions();

  /** What in-script `search()`/`describe()` answer from; built once per catalogue change. */
  discoveryData(): DiscoveryData {
    return this.#views.discoveryData();
  }

  /** Admits runs and follows them: what `exec`, `wait` and the dashboard's live view use. */
  get runs(): RunTracker {
    return this.#tracker;
  }

  /**
   * The one way every surface calls a tool or reads a resource, after the policy gate.
   * Rejects with `ToolCallError`.
   */
  get dispatcher(): Pick<ToolDispatcher, "callTool" | "resources"> {
    return this.#dispatcher;
  }

  /** Type-checks a script against the live tool types without running it (editor diagnostics). */
  async checkSource(source: string): Promise<Diagnostic[]> {
    const prepared = await this.#checker.prepare(source, {
      inline: true,
      resultFunction: RESULT_HOOK,
    });
    if (prepared.kind === "SyntaxError") {
      return [{ message: prepared.message, line: prepared.line, column: prepared.column }];
    }
    await this.catalogueReady(prepared.usage ?? USES_EVERYTHING);
    return await this.#checker.check(prepared);
  }

  async #reloadConfig(): Promise<void> {
    let next: LoadedConfig;
    try {
      next = await loadRootConfig(this.paths.root, Deno.env.toObject());
    } catch (error) {
      // A bad edit keeps the last good config, and `gateway tools`/`status` say so.
      this.#reloadError = (error as Error).message;
      this.log.error("config reload failed; keeping the last good config", {
        error: (error as Error).message,
      });
      return;
    }
    this.#reloadError = null;
    for (const warning of next.warnings) this.log.warn(warning);
    const before = this.#loaded.config;
    this.#loaded = next;
    this.log.info("config reloaded", { file: this.paths.root.configFile });
    await this.#namespaces.apply(diffConfig(before, next.config), before);
  }

  /** Namespaces with status, for `gateway tools` and `/health`. */
  namespaceList(): NamespaceSummary[] {
    return this.#views.namespaceList();
  }

  /** Refuses new runs from now on; runs in flight go on (the server gives them a grace period). */
  beginShutdown(): void {
    this.#tracker.beginShutdown();
  }

  /** Stops runs, namespaces and the database, in that order. */
  async stop(): Promise<void> {
    this.#rootWatcher.close();
    await this.#namespaces.stop();
    await this.runner.close();
    await this.registry.stopAll();
    await this.#namespaces.close();
    await this.#checker.close();
    await this.#checkedShapes.close();
    this.shared?.close();
    if (this.#store.kind === "postgres") {
      await this.#store.close().catch((error) =>
        this.log.warn("cannot close the PostgreSQL store", { error: String(error) })
      );
    }
    this.database.close();
    // Every child has been ended: nothing is left for a later server to reap.
    this.#ledger.remove();
    await Deno.remove(join(this.#runtimeDir, `runs-${Deno.pid}`), { recursive: true }).catch(
      () => undefined,
    );
  }
}
