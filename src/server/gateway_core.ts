/**
 * The running gateway's parts, wired once: config, namespaces, runner, checker, history and
 * workflows. Methods (RPC, HTTP, MCP) call into this; it owns start-up order and shutdown.
 * Longer than 400 lines because it is the one place the parts meet (start order, reload of the
 * root, shutdown order); each part's logic lives in its own module.
 * @module
 */

import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { envFilePath } from "../config/env_file.ts";
import type { LoadedConfig } from "../config/config_loader.ts";
import { loadRootConfig } from "../config/config_loader.ts";
import type { ApiConfig, GatewayConfig, McpServerConfig } from "../config/gateway_config.ts";
import type { ResolvedRoot } from "../config/gateway_paths.ts";
import { pidAlive } from "../config/server_state.ts";
import type { Logger } from "../logger.ts";
import type { CatalogueSnapshot } from "../protocol/catalogue.ts";
import { NamespaceRegistry } from "../namespaces/namespace_registry.ts";
import { type ApprovalDecision, Approvals } from "./approvals.ts";
import { CallPolicy, globMatch } from "./call_policy.ts";
import { ToolCallError, type ToolProgress } from "../namespaces/namespace.ts";
import { describeStatus, lookupToolIdentifier } from "../protocol/catalogue.ts";
import { renderScriptGlobals } from "../namespaces/render_types.ts";
import { LocalNamespace } from "../namespaces/local/local_namespace.ts";
import { ToolDirectoryWatcher } from "../namespaces/local/tool_directory_watcher.ts";
import { ToolModuleSignatures } from "../namespaces/local/tool_module_signatures.ts";
import { SharedToolHosts } from "../namespaces/local/shared_tool_host.ts";
import { McpNamespace } from "../namespaces/mcp/mcp_namespace.ts";
import { OpenApiNamespace } from "../namespaces/openapi/openapi_namespace.ts";
import { GraphqlNamespace } from "../namespaces/graphql/graphql_namespace.ts";
import { RunChannelServer } from "../exec/run_channel_server.ts";
import { ProcessLedger } from "../process/process_ledger.ts";
import { SecretMask } from "../config/secret_mask.ts";
import { GatewayTelemetry } from "../telemetry/gateway_telemetry.ts";
import { runtimeDirFor } from "../config/runtime_dir.ts";
import {
  type FinishedRun,
  RESULT_HOOK,
  type RunHandle,
  type RunRequest,
  ScriptRunner,
} from "../exec/script_runner.ts";
import { FittingShapes, localInputProblem, type LocalToolPath } from "../exec/local_input_check.ts";
import { ScriptCheckerWorker } from "../exec/script_checker_worker.ts";
import { listNamedScripts, type NamedScript } from "../exec/named_scripts.ts";
import { type GatewayDatabase, openGatewayDatabase } from "../store/gateway_database.ts";
import type { GatewayStore, HistoryStore } from "../store/gateway_store.ts";
import { SqliteStore } from "../store/sqlite_store.ts";
import { openPostgresStore } from "../store/postgres_store.ts";
import { SharedRunState } from "./shared_run_state.ts";
import { WorkflowService } from "../workflows/workflow_service.ts";
import type { DiscoveryData } from "../protocol/channel_messages.ts";
import type { Diagnostic, RunDocument } from "../protocol/run_document.ts";
import { RpcCode, RpcError } from "../protocol/json_rpc.ts";
import type { NamespaceSummary } from "../protocol/wire_views.ts";
import { SearchIndex } from "../discovery/search.ts";
import { buildDiscoveryData } from "../discovery/run_discovery_data.ts";

/** A run starting or finishing, as the dashboard's live view shows it. */
export interface RunEvent {
  event: "started" | "finished";
  runId: string;
  client: string;
  ok?: boolean;
  errorKind?: string;
  durationMs?: number;
}

/** A run's tool call starting or ending. */
export interface ToolCallEvent {
  namespace: string;
  tool: string;
  phase: "called" | "answered" | "failed";
  durationMs?: number;
}

/** Where things live, resolved by the CLI before the core starts. */
export interface GatewayPaths {
  root: ResolvedRoot;
  dataDir: string;
}

function denoDir(): string {
  const env = Deno.env.get("DENO_DIR");
  if (env) return env;
  const home = Deno.env.get("HOME") ?? "/tmp";
  return Deno.build.os === "darwin"
    ? join(home, "Library", "Caches", "deno")
    : join(Deno.env.get("XDG_CACHE_HOME") ?? join(home, ".cache"), "deno");
}

/** Longest a run waits for namespaces that are still starting before it is checked. */
const STARTING_WAIT_MS = 15_000;

/** Keeps finished runs' documents briefly, so `wait` after the end still answers. */
const FINISHED_KEEP = 200;

/** The gateway's state and behaviour, independent of how requests arrive. */
export class GatewayCore {
  readonly paths: GatewayPaths;
  readonly log: Logger;
  readonly registry = new NamespaceRegistry();
  /** Calls held by `ask` policy rules. */
  readonly approvals = new Approvals();
  readonly #policy = new CallPolicy({
    rules: () => this.config.policy,
    approvals: this.approvals,
    log: (message, fields) => this.log.warn(message, fields),
  });
  #loaded: LoadedConfig;
  #database: GatewayDatabase | null = null;
  #store: GatewayStore | null = null;
  #shared: SharedRunState | null = null;
  #workflows: WorkflowService | null = null;
  #channel: RunChannelServer | null = null;
  #runner: ScriptRunner | null = null;
  #checker: ScriptCheckerWorker | null = null;
  #watcher: ToolDirectoryWatcher | null = null;
  #signatures: ToolModuleSignatures | null = null;
  /** The one process running tool modules as Workers (issue 12). */
  #sharedToolHosts: SharedToolHosts | null = null;
  #configWatcher: Deno.FsWatcher | null = null;
  #projectWatcher: Deno.FsWatcher | null = null;
  #scripts: NamedScript[] = [];
  #snapshot: CatalogueSnapshot | null = null;
  #searchIndex: SearchIndex | null = null;
  #discovery: { from: CatalogueSnapshot; data: DiscoveryData } | null = null;
  #globalsVersion = 0;
  #globalsReady: Promise<void> = Promise.resolve();
  readonly #finished = new Map<string, RunDocument>();
  #shuttingDown = false;
  /** Why the last config reload failed (the last good config stays in force), or null. */
  #reloadError: string | null = null;
  readonly #stateDir: string;
  /** The gateway's own token: masked wherever secrets are (issue 9, item 9). */
  readonly #token: string | null;
  #runtimeDir: string | null = null;
  /** Spans and metrics, exported only when `OTEL_DENO` is set (issue 16). */
  readonly #telemetry = new GatewayTelemetry();
  #ledger: ProcessLedger | null = null;
  /** Local-tool argument shapes already checked and fitting (issue 10's check, once a shape). */
  readonly #fittingShapes = new FittingShapes();

  constructor(
    paths: GatewayPaths,
    loaded: LoadedConfig,
    log: Logger,
    options: { token?: string } = {},
  ) {
    this.paths = paths;
    this.#loaded = loaded;
    this.log = log;
    this.#token = options.token ?? null;
    this.#stateDir = join(paths.dataDir, "state");
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
   * frames, messages to runners (issue 9, item 4). Not the token, which the dashboard page
   * legitimately carries; no server answer is built from it.
   */
  readonly outgoingMask = new SecretMask(() => this.#configSecrets());

  /** The history store: `gateway.db`, or PostgreSQL when config `store.postgres` is set. */
  get history(): HistoryStore {
    if (!this.#store) throw new Error("The gateway core is not started");
    return this.#store.history;
  }

  /** Run state shared with other instances on one PostgreSQL; null for SQLite. */
  get shared(): SharedRunState | null {
    return this.#shared;
  }

  /** The database, for workflow sessions. */
  get database(): GatewayDatabase {
    if (!this.#database) throw new Error("The gateway core is not started");
    return this.#database;
  }

  /** Workflow sessions (SPEC §10). */
  get workflows(): WorkflowService {
    if (!this.#workflows) throw new Error("The gateway core is not started");
    return this.#workflows;
  }

  /** The script runner. */
  get runner(): ScriptRunner {
    if (!this.#runner) throw new Error("The gateway core is not started");
    return this.#runner;
  }

  /** Starts everything; returns once the server can answer (slow upstreams keep starting). */
  async start(): Promise<void> {
    await Deno.mkdir(this.#stateDir, { recursive: true, mode: 0o700 });
    await Deno.chmod(this.#stateDir, 0o700);
    // The server lock is held (gateway_server.ts): every ledger but ours is a dead server's.
    ProcessLedger.reapStale(this.#stateDir, { log: (m) => this.log.warn(m) });
    this.#ledger = new ProcessLedger(this.#stateDir, { log: (m) => this.log.warn(m) });
    this.#runtimeDir = runtimeDirFor(this.paths.dataDir);
    await this.#removeStaleState(this.#stateDir);
    await this.#removeStaleState(this.#runtimeDir);
    const runsDir = join(this.#runtimeDir, `runs-${Deno.pid}`);
    await Deno.mkdir(runsDir, { recursive: true, mode: 0o700 });
    this.#database = openGatewayDatabase(join(this.paths.dataDir, "gateway.db"));
    const historyOptions = {
      secrets: this.secrets(),
      maxOutputBytes: this.config.history.maxOutputBytes,
    };
    const { postgres, poolSize, leaseMs } = this.config.store;
    // Several instances on one database share history and run state through PostgreSQL.
    if (postgres === undefined) {
      this.#store = new SqliteStore(this.#database, historyOptions);
    } else {
      const log = (m: string) => this.log.warn(m, { component: "store" });
      const store = await openPostgresStore(postgres, { ...historyOptions, poolSize, log });
      this.#store = store;
      await store.coordination.start({ leaseMs, log });
      this.#shared = new SharedRunState(store.coordination, this.approvals, log);
    }
    this.#pruneHistory();
    this.#workflows = new WorkflowService({
      sessions: this.#store.workflows,
      root: this.paths.root.dir,
    });
    this.#channel = new RunChannelServer({
      log: (m) => this.log.warn(m, { component: "channel" }),
      stringify: (message) => {
        if (message.t !== "run") return this.outgoingMask.stringify(message);
        // The caller's own arguments and stdin reach the script as given; everything the
        // gateway adds (catalogue, discovery data) is masked.
        const { args, stdin, ...rest } = message;
        return `${this.outgoingMask.stringify(rest).slice(0, -1)},"args":${
          JSON.stringify(args)
        },"stdin":${JSON.stringify(stdin)}}`;
      },
    });
    this.#checker = ScriptCheckerWorker.start({ cacheDir: join(this.paths.dataDir, "cache") });
    this.#runner = new ScriptRunner({
      channel: this.#channel,
      runsDir,
      denoDir: denoDir(),
      deniedPaths: [this.paths.dataDir],
      onSpawn: (pid) => this.#ledger?.record(pid),
      telemetry: this.#telemetry,
      upstreamOf: (name) => this.registry.get(name)?.kind ?? "unknown",
      exec: () => this.config.exec,
      historyOutputBytes: () => this.config.history.maxOutputBytes,
      configDir: this.paths.root.dir,
      callTool: (call) => {
        const watcher = this.#toolCallWatchers.get(call.runId);
        const started = Date.now();
        watcher?.({ namespace: call.namespace, tool: call.tool, phase: "called" });
        const done = this.callTool(call.namespace, call.tool, call.args, {
          raw: call.raw,
          signal: call.signal,
          callTimeoutMs: call.callTimeoutMs,
          runId: call.runId,
          ...(call.deadline !== undefined ? { deadline: call.deadline } : {}),
          argsChecked: call.argsChecked === true,
          ...(call.onProgress ? { onProgress: call.onProgress } : {}),
          ...(call.onApproval ? { onApproval: call.onApproval } : {}),
        });
        if (watcher) {
          const end = (ok: boolean) =>
            watcher({
              namespace: call.namespace,
              tool: call.tool,
              phase: ok ? "answered" : "failed",
              durationMs: Date.now() - started,
            });
          done.then(() => end(true), () => end(false));
        }
        return done;
      },
      resources: (request) => this.resources(request),
      catalogueReady: (source) => this.catalogueReady(source),
      toolMap: () => this.registry.toolMap(),
      discovery: () => this.discoveryData(),
      prepare: (source, inline) =>
        this.#checker!.prepare(source, { inline, resultFunction: RESULT_HOOK }),
      check: (prepared) => this.#checker!.check(prepared),
      record: (run) => this.#record(run),
      log: (m) => this.log.warn(m, { component: "runner" }),
    });
    this.#runner.warm();
    this.#telemetry.observe(() => {
      const namespaces: Record<string, number> = {};
      for (const ns of this.registry.list()) {
        const state = ns.status().state;
        namespaces[state] = (namespaces[state] ?? 0) + 1;
      }
      return {
        queued: this.#runner?.queuedCount ?? 0,
        active: this.#runner?.activeCount ?? 0,
        namespaces,
      };
    });
    this.registry.onChange(() => this.#catalogueChanged());
    await this.#refreshScripts();
    this.#startNamespaces();
    this.#catalogueChanged();
    this.#watchConfig();
  }

  /**
   * Removes run directories and channel sockets left by gateways that died without stopping
   * (kill -9), so scratch space returns to its baseline (RELIABILITY SBX-13).
   */
  async #removeStaleState(dir: string): Promise<void> {
    for await (const entry of Deno.readDir(dir)) {
      const match = /^(?:runs|channel)-(\d+)(?:\.sock)?$/.exec(entry.name);
      if (!match || Number(match[1]) === Deno.pid || pidAlive(Number(match[1]))) continue;
      await Deno.remove(join(dir, entry.name), { recursive: true }).catch((error) =>
        this.log.warn("cannot remove stale run state", { path: entry.name, error: String(error) })
      );
    }
  }

  #pruneHistory(): void {
    this.#store?.history.prune({
      maxRuns: this.config.history.maxRuns,
      maxAgeDays: this.config.history.maxAgeDays,
    }).catch((error) => this.log.error("history retention failed", { error: String(error) }));
  }

  #startNamespaces(): void {
    const toolsDir = join(this.paths.root.dir, "tools");
    const cacheDir = join(this.paths.dataDir, "cache");
    this.#signatures = new ToolModuleSignatures({ cacheDir });
    this.#sharedToolHosts = new SharedToolHosts({
      logger: this.log.child("tools"),
      onSpawn: (pid) => this.#ledger?.record(pid),
    });
    const addLocal = (name: string, file: string) => this.#addLocal(name, file);
    this.#watcher = new ToolDirectoryWatcher(toolsDir, {
      logger: this.log.child("tools"),
      onChanges: (changes) => {
        // Each change touches that namespace alone (SPEC §3).
        for (const change of changes) {
          const existing = this.registry.get(change.name);
          if (change.kind === "removed") this.registry.remove(change.name);
          else if (existing instanceof LocalNamespace) existing.reload();
          else if (!existing) addLocal(change.name, change.file);
        }
      },
    });
    this.#watcher.start().then(
      (files) => {
        for (const { name, file } of files) addLocal(name, file);
      },
      (error) => this.log.error("cannot watch the tools directory", { error: String(error) }),
    );
    for (const [name, server] of Object.entries(this.config.mcpServers)) {
      if (server.disabled || this.#hasToolModule(name)) continue;
      this.registry.add(this.#mcpNamespace(name, server));
    }
    for (const [name, api] of Object.entries(this.config.apis)) this.#addApi(name, api);
  }

  /** Adds an `apis` entry (OpenAPI document or GraphQL endpoint) as namespace `name`. */
  #addApi(name: string, api: ApiConfig): void {
    if (api.disabled) return;
    if (this.registry.get(name)) {
      this.log.warn(`apis "${name}" has the name of another namespace; the API is skipped`);
      return;
    }
    const options = { baseDir: this.paths.root.dir, cacheDir: join(this.paths.dataDir, "cache") };
    this.registry.add(
      api.graphql === undefined
        ? new OpenApiNamespace(name, api, options)
        : new GraphqlNamespace(name, api),
    );
  }

  /** Whether `ROOT/tools/NAME.ts` exists: such a name cannot also be an MCP server's. */
  #hasToolModule(name: string): boolean {
    return existsSync(join(this.paths.root.dir, "tools", `${name}.ts`));
  }

  /**
   * Names that are both a tool module and an enabled MCP server: neither is served, whatever
   * order they appeared in (at start or on reload), and `gateway tools` says why.
   */
  #clashes(): string[] {
    return Object.entries(this.config.mcpServers)
      .filter(([name, server]) => !server.disabled && this.#hasToolModule(name))
      .map(([name]) =>
        `namespace "${name}" is both the tool module ${
          join(this.paths.root.dir, "tools", `${name}.ts`)
        } and mcpServers "${name}" in ${
          this.#loaded.mcpJsonFile ?? this.paths.root.configFile ?? "gateway.json"
        }: rename one (neither is served until then)`
      );
  }

  /** Policy rules that match no tool of a namespace that is ready (likely a typo). */
  #idlePolicyRules(): string[] {
    const namespaces = this.registry.typed();
    if (namespaces.some((ns) => ns.status.state === "starting")) return [];
    const names = namespaces.flatMap((ns) =>
      ns.catalogue.tools.flatMap((tool) => [
        `${ns.name}.${tool.originalName}`,
        `${ns.identifier}.${lookupToolIdentifier(ns, tool.originalName) ?? tool.originalName}`,
      ])
    );
    return this.config.policy.filter((rule) => !names.some((n) => globMatch(rule.match, n)))
      .map((rule) =>
        `policy rule "${rule.match}" (${rule.action}) matches no tool: check the namespace and tool names (gateway tools)`
      );
  }

  /**
   * What is wrong with the configuration in force, for `gateway tools`/`status`: warnings from
   * loading it (unset variables, ignored keys), name clashes, policy rules that match nothing.
   */
  configWarnings(): string[] {
    return [...this.#loaded.warnings, ...this.#clashes(), ...this.#idlePolicyRules()];
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

  /** Adds the tool module `file` as namespace `name`, unless its config disables it. */
  #addLocal(name: string, file: string): void {
    const configured = this.config.tools[name] ?? { settings: {}, disabled: false };
    if (configured.disabled) return;
    const server = this.config.mcpServers[name];
    if (server && !server.disabled) return; // a clash, reported by configWarnings()
    // The bundled kv and memory keep their data in the shared PostgreSQL when there is one.
    const postgres = this.config.store.postgres;
    const shares = name === "kv" || name === "memory";
    const config = shares && postgres !== undefined && !("postgres" in configured.settings)
      ? { ...configured, settings: { ...configured.settings, postgres } }
      : configured;
    this.registry.add(
      new LocalNamespace(name, {
        file,
        config,
        dataDir: this.paths.dataDir,
        cacheDir: join(this.paths.dataDir, "cache"),
        onSpawn: (pid) => this.#ledger?.record(pid),
        signatures: this.#signatures!,
        shared: this.#sharedToolHosts!,
        logger: this.log.child(`tools.${name}`),
      }),
    );
  }

  /** An MCP namespace; a stdio server's relative `cwd` is relative to the root, not to us. */
  #mcpNamespace(name: string, server: McpServerConfig): McpNamespace {
    const config = "command" in server && server.cwd !== undefined
      ? { ...server, cwd: resolve(this.paths.root.dir, server.cwd) }
      : server;
    return new McpNamespace(name, config, {
      logger: this.log.child(`mcp.${name}`),
      onSpawn: (pid) => this.#ledger?.record(pid),
      dataDir: this.paths.dataDir,
    });
  }

  async #refreshScripts(): Promise<void> {
    try {
      this.#scripts = await listNamedScripts(join(this.paths.root.dir, "scripts"));
    } catch (error) {
      this.log.warn("cannot list named scripts", { error: String(error) });
    }
    this.#snapshot = null;
  }

  /** Named scripts of the root, as last listed. */
  scripts(): NamedScript[] {
    return this.#scripts;
  }

  #catalogueChanged(): void {
    this.#snapshot = null;
    this.#fittingShapes.clear();
    const version = ++this.#globalsVersion;
    const dts = renderScriptGlobals(this.snapshot());
    this.#globalsReady = (this.#checker?.setGlobals(dts) ?? Promise.resolve()).catch((error) => {
      if (version === this.#globalsVersion) {
        this.log.error("type checker rejected the generated globals", { error: String(error) });
      }
    });
  }

  /**
   * Waits (bounded) for namespaces still starting and for the checker to hold the current
   * types, so a run right after start-up sees every tool that is about to be ready.
   */
  async catalogueReady(source?: string): Promise<void> {
    await this.registry.settled(
      STARTING_WAIT_MS,
      source === undefined ? undefined : this.#namespacesUsedBy(source),
    );
    if (this.registry.changePending || this.#snapshot === null) this.#catalogueChanged();
    await this.#globalsReady;
  }

  /** The catalogue as discovery and the type renderer see it; cached until it changes. */
  snapshot(): CatalogueSnapshot {
    if (!this.#snapshot) {
      this.#snapshot = { namespaces: this.registry.typed(), scripts: this.#scripts };
    }
    return this.#snapshot;
  }

  /** The search index of the current snapshot, built once per catalogue change. */
  searchIndex(): SearchIndex {
    const snapshot = this.snapshot();
    if (!this.#searchIndex || this.#searchIndex.entries.snapshot !== snapshot) {
      this.#searchIndex = new SearchIndex(snapshot);
    }
    return this.#searchIndex;
  }

  /**
   * What in-script `search()`/`describe()` answer from: the catalogue entries, rendered. Built
   * once per catalogue change, not per run.
   */
  discoveryData(): DiscoveryData {
    const snapshot = this.snapshot();
    if (this.#discovery?.from === snapshot) return this.#discovery.data;
    const data = buildDiscoveryData(this.searchIndex().entries);
    this.#discovery = { from: snapshot, data };
    return data;
  }

  /**
   * Calls one tool: resolves names, applies policy, and hands the namespace the per-call
   * limits. Rejects with `ToolCallError`.
   */
  async callTool(
    namespaceName: string,
    toolName: string,
    args: unknown,
    options: {
      raw: boolean;
      signal: AbortSignal;
      callTimeoutMs?: number;
      onProgress?: (progress: ToolProgress) => void;
      /** The run making the call; only runs can wait for an approval. */
      runId?: string;
      /** True when a type check of the calling script already checked the argument. */
      argsChecked?: boolean;
      onApproval?: (decision: ApprovalDecision) => void;
      /** When the run making the call times out (epoch ms). */
      deadline?: number;
    },
  ): Promise<unknown> {
    const { namespace, tool } = this.registry.resolve(namespaceName, toolName);
    const state = namespace.status();
    if (state.state !== "ready") {
      throw new ToolCallError(
        "NamespaceUnavailable",
        `Namespace "${namespace.name}" is ${
          describeStatus(state)
        }; ${namespace.name}.${tool.originalName} cannot be called now`,
      );
    }
    const typed = this.registry.typed().find((n) => n.name === namespace.name);
    const identifier = typed && lookupToolIdentifier(typed, tool.originalName);
    await this.#policy.check(namespace.name, tool.originalName, args, {
      aliases: typed && identifier ? [`${typed.identifier}.${identifier}`] : [],
      annotations: tool.annotations,
      runId: options.runId,
      signal: options.signal,
      onApproval: options.onApproval,
      deadline: options.deadline,
    });
    if (namespace.kind === "local" && typed && identifier && options.argsChecked !== true) {
      await this.#validateLocalInput({ namespace: typed.identifier, tool: identifier }, args);
    }
    let result;
    try {
      result = await namespace.callTool(tool.originalName, args ?? {}, {
        signal: options.signal,
        callTimeoutMs: options.callTimeoutMs ?? this.config.exec.callTimeoutMs,
        callMaxMs: this.config.exec.callMaxMs,
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      });
    } catch (error) {
      // `.raw()` hands back the envelope as the tool sent it, `isError` included (SPEC §4).
      if (options.raw && error instanceof ToolCallError && error.raw !== undefined) {
        return error.raw;
      }
      throw error;
    }
    return options.raw ? result.raw : result.value;
  }

  /**
   * Checks a local tool's argument against its TypeScript type with the warm checker and
   * fails the call as `InvalidToolInput` when it does not fit. Skipped (the tool validates)
   * when the checker is unavailable.
   */
  async #validateLocalInput(path: LocalToolPath, args: unknown): Promise<void> {
    const checker = this.#checker;
    if (checker === null) return;
    const key = this.#fittingShapes.key(path, args);
    if (key !== null && this.#fittingShapes.has(key)) return;
    let problem: string | null;
    try {
      await this.#globalsReady;
      problem = await localInputProblem(path, args, (source) => checker.check(source));
    } catch {
      return;
    }
    if (problem !== null) throw new ToolCallError("InvalidToolInput", problem);
    if (key !== null) this.#fittingShapes.add(key);
  }

  /**
   * The namespaces a script names (`tools.x`, `tools["x"]`), so a run waits only for the
   * upstreams it uses; a script that indexes `tools` dynamically or searches waits for all.
   */
  #namespacesUsedBy(source: string): ReadonlySet<string> | undefined {
    if (/\btools\s*\[\s*[^"'\s]|\b(search|describe)\s*\(|\bresources\s*\./.test(source)) {
      return undefined;
    }
    const used = new Set<string>();
    for (const ns of this.registry.typed()) {
      const id = ns.identifier.replace(/\$/g, "\\$");
      const name = ns.name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      if (
        new RegExp(`\\btools\\s*\\.\\s*${id}\\b|\\btools\\s*\\[\\s*["'\`]${name}["'\`]`).test(
          source,
        )
      ) {
        used.add(ns.name);
      }
    }
    return used;
  }

  /** Resources of an MCP namespace, for the `resources` global. */
  async resources(
    request: { namespace: string; op: "list" | "read"; uri?: string },
  ): Promise<unknown> {
    const ns = this.registry.get(request.namespace) ??
      this.registry.list().find((n) =>
        this.registry.typed().find((t) => t.name === n.name)?.identifier === request.namespace
      );
    if (!ns) {
      const names = this.registry.list().filter((n) => n.listResources !== undefined)
        .map((n) => n.name);
      throw new ToolCallError(
        "UnknownTool",
        `Unknown namespace "${request.namespace}" in resources.${request.op}(): the namespaces ` +
          `with resources are: ${names.join(", ") || "(none)"}`,
      );
    }
    if (!ns.listResources || !ns.readResource) {
      throw new ToolCallError(
        "ToolError",
        `Namespace "${ns.name}" has no resources (only MCP servers do)`,
      );
    }
    if (request.op === "list") return await ns.listResources();
    if (!request.uri) throw new ToolCallError("InvalidToolInput", "resources.read needs a uri");
    return await ns.readResource(request.uri);
  }

  /** Starts a run. */
  exec(request: RunRequest): RunHandle {
    if (this.#shuttingDown) {
      throw new RpcError(
        RpcCode.ShuttingDown,
        "The gateway is shutting down and takes no new runs: retry once it is back",
        { kind: "ShuttingDown" },
      );
    }
    const { maxQueuedRuns } = this.config.exec;
    if (this.runner.queuedCount >= maxQueuedRuns) {
      // Backpressure (RELIABILITY LOAD-04): refuse at once rather than queue without bound.
      throw new RpcError(
        RpcCode.Overloaded,
        `Overloaded: ${this.runner.queuedCount} runs are already waiting (exec.maxQueuedRuns); retry shortly`,
        { kind: "Overloaded", retryAfterMs: 1000 },
      );
    }
    const handle = this.runner.start(request);
    this.#emitRun({ event: "started", runId: handle.runId, client: request.client });
    this.#shared?.runStarted({
      runId: handle.runId,
      startedAt: Date.now(),
      source: request.source,
      args: request.args,
      stdinBytes: new TextEncoder().encode(request.stdin).length,
      cwd: request.cwd,
      client: request.client,
      name: request.name ?? null,
    });
    handle.done.then((doc) => {
      this.#emitRun({
        event: "finished",
        runId: doc.runId,
        client: request.client,
        ok: doc.ok,
        ...(doc.error ? { errorKind: doc.error.kind } : {}),
        durationMs: doc.durationMs,
      });
      this.#finished.set(doc.runId, doc);
      if (this.#finished.size > FINISHED_KEEP) {
        const oldest = this.#finished.keys().next().value;
        if (oldest !== undefined) this.#finished.delete(oldest);
      }
    });
    return handle;
  }

  readonly #runListeners = new Set<(event: RunEvent) => void>();
  readonly #toolCallWatchers = new Map<string, (event: ToolCallEvent) => void>();

  /**
   * Tells `listener` when run `runId` calls a tool and when the call ends (an MCP client's
   * progress notifications); returns the function that stops it.
   */
  watchToolCalls(runId: string, listener: (event: ToolCallEvent) => void): () => void {
    this.#toolCallWatchers.set(runId, listener);
    return () => this.#toolCallWatchers.delete(runId);
  }

  /** Tells `listener` when a run starts and finishes (the dashboard's live view). */
  onRun(listener: (event: RunEvent) => void): () => void {
    this.#runListeners.add(listener);
    return () => this.#runListeners.delete(listener);
  }

  #emitRun(event: RunEvent): void {
    for (const listener of this.#runListeners) listener(event);
  }

  /** Type-checks a script against the live tool types without running it (editor diagnostics). */
  async checkSource(source: string): Promise<Diagnostic[]> {
    await this.catalogueReady(source);
    const prepared = await this.#checker!.prepare(source, {
      inline: true,
      resultFunction: RESULT_HOOK,
    });
    if (prepared.kind === "SyntaxError") {
      return [{ message: prepared.message, line: prepared.line, column: prepared.column }];
    }
    return await this.#checker!.check(prepared);
  }

  /** A finished run's document, while it is still remembered. */
  finished(runId: string): RunDocument | undefined {
    return this.#finished.get(runId);
  }

  async #record(run: FinishedRun): Promise<boolean> {
    const { document, request } = run;
    try {
      await this.#shared?.beforeRecord(document.runId);
      await this.history.record({
        runId: document.runId,
        startedAt: run.startedAt,
        durationMs: document.durationMs,
        source: request.source,
        args: request.args,
        stdinBytes: new TextEncoder().encode(request.stdin).length,
        cwd: request.cwd,
        client: request.client,
        status: document.ok ? "ok" : "failed",
        errorKind: document.error?.kind ?? null,
        errorMessage: document.error?.message ?? null,
        stdout: run.stdout,
        stderr: run.stderr,
        result: run.fullResult !== undefined
          ? JSON.stringify(run.fullResult)
          : document.result === undefined
          ? null
          : JSON.stringify(document.result),
        exitCode: document.exitCode,
        toolCalls: run.toolCalls,
        name: request.name ?? null,
        stdoutTotalBytes: run.stdoutBytes,
        stderrTotalBytes: run.stderrBytes,
      });
      return true;
    } catch (error) {
      this.log.error("history write failed; the run result is returned without it", {
        runId: document.runId,
        error: String(error),
      });
      return false;
    }
  }

  #watchConfig(): void {
    const file = this.paths.root.configFile;
    const scriptsDir = join(this.paths.root.dir, "scripts");
    const watched = [this.paths.root.dir];
    // The env file and the project's .mcp.json (beside a .gateway/ root) reload the config too.
    const configFiles = [file, envFilePath(this.paths.root.dir)];
    const projectDir = this.paths.root.source === "project" ? dirname(this.paths.root.dir) : null;
    if (projectDir !== null) configFiles.push(join(projectDir, ".mcp.json"));
    else configFiles.push(join(this.paths.root.dir, ".mcp.json"));
    try {
      this.#configWatcher = Deno.watchFs(watched, { recursive: true });
      if (projectDir !== null) {
        this.#projectWatcher = Deno.watchFs(projectDir, { recursive: false });
      }
    } catch (error) {
      this.log.warn("cannot watch the root for changes", { error: String(error) });
      return;
    }
    if (this.#projectWatcher) {
      const project = this.#projectWatcher;
      (async () => {
        try {
          for await (const event of project) {
            if (event.paths.some((p) => configFiles.includes(p))) this.#scheduleReload();
          }
        } catch (error) {
          this.log.warn("project watcher stopped", { error: String(error) });
        }
      })();
    }
    let timer: ReturnType<typeof setTimeout> | null = null;
    let configTouched = false;
    let scriptsTouched = false;
    (async () => {
      try {
        for await (const event of this.#configWatcher!) {
          if (event.paths.some((p) => configFiles.includes(p))) configTouched = true;
          if (event.paths.some((p) => p.startsWith(scriptsDir))) scriptsTouched = true;
          if (!configTouched && !scriptsTouched) continue;
          if (timer !== null) clearTimeout(timer);
          timer = setTimeout(() => {
            timer = null;
            if (configTouched) this.#reloadConfig();
            if (scriptsTouched) this.#refreshScripts().then(() => this.#catalogueChanged());
            configTouched = false;
            scriptsTouched = false;
          }, 100);
        }
      } catch (error) {
        this.log.warn("root watcher stopped", { error: String(error) });
      }
    })();
  }

  #reloadTimer: ReturnType<typeof setTimeout> | null = null;

  /** Reloads the config shortly after a burst of changes to the project's `.mcp.json`. */
  #scheduleReload(): void {
    if (this.#reloadTimer !== null) clearTimeout(this.#reloadTimer);
    this.#reloadTimer = setTimeout(() => {
      this.#reloadTimer = null;
      this.#reloadConfig();
    }, 100);
  }

  async #reloadConfig(): Promise<void> {
    const file = this.paths.root.configFile;
    let next: LoadedConfig;
    try {
      next = await loadRootConfig(this.paths.root, Deno.env.toObject());
    } catch (error) {
      // A bad edit keeps the last good config (SPEC §2), and `gateway tools`/`status` say so.
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
    this.log.info("config reloaded", { file });
    for (const [name, server] of Object.entries(next.config.mcpServers)) {
      const old = before.mcpServers[name];
      if (JSON.stringify(old) === JSON.stringify(server)) continue;
      await this.registry.remove(name);
      if (!server.disabled && !this.#hasToolModule(name)) {
        this.registry.add(this.#mcpNamespace(name, server));
      }
    }
    for (const name of Object.keys(before.mcpServers)) {
      if (name in next.config.mcpServers) continue;
      await this.registry.remove(name);
      // A tool module the server's name kept out is served now.
      if (this.#hasToolModule(name)) {
        this.#addLocal(name, join(this.paths.root.dir, "tools", `${name}.ts`));
      }
    }
    for (const [name, api] of Object.entries(next.config.apis)) {
      if (JSON.stringify(before.apis[name]) === JSON.stringify(api)) continue;
      if (before.apis[name] !== undefined) await this.registry.remove(name);
      this.#addApi(name, api);
    }
    for (const name of Object.keys(before.apis)) {
      if (!(name in next.config.apis)) await this.registry.remove(name);
    }
    // A tool module whose settings or permissions changed restarts with the new ones.
    for (const namespace of this.registry.list()) {
      if (!(namespace instanceof LocalNamespace)) continue;
      const name = namespace.name;
      if (JSON.stringify(before.tools[name]) === JSON.stringify(next.config.tools[name])) continue;
      const file = join(this.paths.root.dir, "tools", `${name}.ts`);
      await this.registry.remove(name);
      this.#addLocal(name, file);
    }
  }

  /** Namespaces with status, for `gateway tools` and `/health`. */
  namespaceList(): NamespaceSummary[] {
    return this.registry.typed().map((ns) => ({
      name: ns.name,
      identifier: ns.identifier,
      kind: ns.kind,
      status: ns.status.state,
      ...(ns.status.state === "failed" ? { reason: ns.status.reason } : {}),
      tools: ns.catalogue.tools.length,
      ...(ns.catalogue.prompts?.length ? { prompts: ns.catalogue.prompts } : {}),
      ...(ns.catalogue.warnings.length ? { notes: ns.catalogue.warnings } : {}),
    }));
  }

  /** Refuses new runs from now on; runs in flight go on (the server gives them a grace period). */
  beginShutdown(): void {
    this.#shuttingDown = true;
  }

  /** Stops runs, namespaces and the database, in that order. */
  async stop(): Promise<void> {
    try {
      this.#configWatcher?.close();
      this.#projectWatcher?.close();
    } catch {
      // already closed
    }
    if (this.#reloadTimer !== null) clearTimeout(this.#reloadTimer);
    await this.#watcher?.stop();
    await this.#runner?.close();
    await this.registry.stopAll();
    await this.#sharedToolHosts?.stop();
    await this.#signatures?.close();
    await this.#checker?.close();
    this.#shared?.close();
    if (this.#store?.kind === "postgres") {
      await this.#store.close().catch((error) =>
        this.log.warn("cannot close the PostgreSQL store", { error: String(error) })
      );
    }
    this.#database?.close();
    // Every child has been ended: nothing is left for a later server to reap.
    this.#ledger?.remove();
    if (this.#runtimeDir !== null) {
      await Deno.remove(join(this.#runtimeDir, `runs-${Deno.pid}`), { recursive: true }).catch(
        () => undefined,
      );
    }
  }
}
