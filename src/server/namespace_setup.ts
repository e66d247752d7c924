/**
 * Which namespaces the root and its config make, and how a config reload changes them: tool
 * modules under `ROOT/tools`, `mcpServers`, `apis`, and the names that clash between them.
 * The OpenAPI and GraphQL code loads only when the config has `apis`.
 * @module
 */

import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { ApiConfig, GatewayConfig, McpServerConfig } from "../config/gateway_config.ts";
import type { LoadedConfig } from "../config/config_loader.ts";
import { blockedReason } from "../config/config_value.ts";
import { envFilePath } from "../config/env_file.ts";
import { runtimeDirFor } from "../config/runtime_dir.ts";
import type { Logger } from "../logger.ts";
import { foundOsSandboxTools, OsSandbox } from "../process/os_sandbox.ts";
import { withRealPath } from "../process/sandbox_view.ts";
import type { Namespace } from "../namespaces/namespace.ts";
import type { NamespaceRegistry } from "../namespaces/namespace_registry.ts";
import { BlockedNamespace } from "../namespaces/blocked_namespace.ts";
import { LocalNamespace } from "../namespaces/local/local_namespace.ts";
import { ToolDirectoryWatcher } from "../namespaces/local/tool_directory_watcher.ts";
import { ToolModuleSignatures } from "../namespaces/local/tool_module_signatures.ts";
import { SharedToolHosts } from "../namespaces/local/shared_tool_host.ts";
import { DeferredMcpNamespace } from "../namespaces/mcp/deferred_mcp_namespace.ts";
import type { ProtocolLogs } from "../namespaces/mcp/protocol_log.ts";
import type { GatewayPaths } from "./gateway_paths.ts";
import type { ConfigDiff } from "./root_watcher.ts";

/**
 * Longest the MCP servers wait for the gateway's own start (its tool modules loading) before
 * they start anyway: a module that hangs at import must not hold them for its load timeout.
 */
const UPSTREAM_WAIT_MAX_MS = 1000;

/** Builds an `apis` namespace; loaded on demand. */
type ApiFactory = (name: string, api: ApiConfig) => Namespace;

/** What the setup needs from the gateway. */
export interface NamespaceSetupOptions {
  paths: GatewayPaths;
  registry: NamespaceRegistry;
  log: Logger;
  /** The loaded configuration in force. */
  loaded: () => LoadedConfig;
  /** Records a spawned child's pid, so a later server reaps it if this one dies. */
  onSpawn: (pid: number) => void;
  /** Where each MCP namespace's traffic is kept for the dashboard. */
  protocolLogs?: ProtocolLogs;
  /**
   * The gateway's own start-up work still in flight besides the tool modules (the type
   * checker's warm-up for a first typed run): the MCP servers start after it too (bounded).
   */
  startupWork?: () => Promise<void>;
}

/** Adds, replaces and removes namespaces as the root and its config say. */
export class NamespaceSetup {
  readonly #options: NamespaceSetupOptions;
  readonly #signatures: ToolModuleSignatures;
  /** The process running tool modules as Workers; started by the first module. */
  readonly #sharedToolHosts: SharedToolHosts;
  /** Directories no tool host process is shown under the OS sandbox. */
  readonly #hiddenPaths: string[];
  /** The operating-system layer tool hosts start under (`exec.osSandbox`). */
  readonly #sandbox: OsSandbox;
  #watcher: ToolDirectoryWatcher | null = null;
  /**
   * Released once the gateway's own start is over — every tool module loaded or failed, then
   * `startupWork`; at most `UPSTREAM_WAIT_MAX_MS` after the server answers — or at once when a
   * run needs an MCP namespace (`releaseUpstreams`). The MCP namespaces load their code (the
   * SDK, ajv) and start their servers after it: on two cores an upstream's own start (a `node`
   * process and its SDK) costs as much CPU as the gateway's, and would take it from the first
   * runs.
   */
  readonly #upstreams = Promise.withResolvers<void>();
  /** Ends the wait for the gateway's own start (`stop()`). */
  #ownStartTimer: ReturnType<typeof setTimeout> | undefined;
  #openApi: ApiFactory | null = null;
  #graphql: ApiFactory | null = null;

  constructor(options: NamespaceSetupOptions) {
    this.#options = options;
    this.#signatures = new ToolModuleSignatures({ cacheDir: this.#cacheDir });
    // Private, short (socket paths), and swept of a dead server's leftovers at start.
    const socketDir = runtimeDirFor(options.paths.dataDir);
    // Every server's scratch space of this user: no tool host sees it (but its own socket).
    this.#hiddenPaths = withRealPath(dirname(socketDir));
    // The tools were found while the state was opened (`gateway_state.ts`).
    this.#sandbox = new OsSandbox(foundOsSandboxTools(), {
      setting: () => this.#config.exec.osSandbox,
    });
    this.#sharedToolHosts = new SharedToolHosts({
      logger: options.log.child("tools"),
      onSpawn: options.onSpawn,
      socketDir,
      sandbox: this.#sandbox,
      hiddenPaths: this.#hiddenPaths,
    });
  }

  get #config(): GatewayConfig {
    return this.#options.loaded().config;
  }

  get #cacheDir(): string {
    return join(this.#options.paths.dataDir, "cache");
  }

  get #rootDir(): string {
    return this.#options.paths.root.dir;
  }

  /**
   * Adds every namespace of the root and config; each starts on its own (none is awaited,
   * only the listing of the tools directory).
   */
  async startAll(): Promise<void> {
    const { registry, log } = this.#options;
    await this.#loadApiKinds(this.#config);
    this.#watcher = new ToolDirectoryWatcher(join(this.#rootDir, "tools"), {
      logger: log.child("tools"),
      onChanges: (changes) => {
        // Each change touches that namespace alone.
        for (const change of changes) {
          const existing = registry.get(change.name);
          if (change.kind === "removed") registry.remove(change.name);
          else if (existing instanceof LocalNamespace) existing.reload();
          else if (!existing) this.#addLocal(change.name, change.file);
        }
      },
    });
    const listing = this.#watcher.start();
    for (const [name, server] of Object.entries(this.#config.mcpServers)) {
      if (server.disabled || this.#hasToolModule(name)) continue;
      registry.add(this.#mcpNamespace(name, server));
    }
    for (const [name, api] of Object.entries(this.#config.apis)) this.#addApi(name, api);
    await this.#addBlocked();
    // Listed before start-up ends, so the first request already waits for every module.
    try {
      for (const { name, file } of await listing) this.#addLocal(name, file);
    } catch (error) {
      log.error("cannot watch the tools directory", { error: String(error) });
    }
    const modules = new Set(
      registry.list().filter((ns) => ns instanceof LocalNamespace).map((ns) => ns.name),
    );
    // A timer, not a microtask: the caller finishes the start (and the server answers) first.
    this.#ownStartTimer = setTimeout(() => {
      this.#ownStartTimer = setTimeout(() => this.#upstreams.resolve(), UPSTREAM_WAIT_MAX_MS);
      this.#ownStart(modules).finally(() => {
        clearTimeout(this.#ownStartTimer);
        this.#upstreams.resolve();
      });
    }, 0);
  }

  /** The gateway's own start: the tool modules `modules` settled, then `startupWork`. */
  async #ownStart(modules: ReadonlySet<string>): Promise<void> {
    try {
      await this.#options.registry.settled(UPSTREAM_WAIT_MAX_MS, modules);
      await this.#options.startupWork?.();
    } catch (error) {
      this.#options.log.warn("the MCP servers start without waiting", { error: String(error) });
    }
  }

  /** Lets the MCP servers start now: a run waits for one of them (see `#upstreams`). */
  releaseUpstreams(): void {
    this.#upstreams.resolve();
  }

  /**
   * Applies a reload: restarts what changed, removes what is gone, adds what is new. `before`
   * is the config that was in force; the new one is already `loaded()`.
   */
  async apply(diff: ConfigDiff, before: GatewayConfig): Promise<void> {
    const { registry } = this.#options;
    const next = this.#config;
    await this.#loadApiKinds(next);
    // An entry no longer blocked is added below as what it is, under the same name.
    const blocked = new Set(this.#options.loaded().blocked.map((b) => b.name));
    for (const namespace of registry.list()) {
      if (namespace instanceof BlockedNamespace && !blocked.has(namespace.name)) {
        await registry.remove(namespace.name);
      }
    }
    for (const name of diff.mcpChanged) {
      const server = next.mcpServers[name]!;
      await registry.remove(name);
      if (!server.disabled && !this.#hasToolModule(name)) {
        registry.add(this.#mcpNamespace(name, server));
      }
    }
    for (const name of diff.mcpRemoved) {
      await registry.remove(name);
      this.#options.protocolLogs?.drop(name);
      // A tool module the server's name kept out is served now.
      if (this.#hasToolModule(name)) {
        this.#addLocal(name, join(this.#rootDir, "tools", `${name}.ts`));
      }
    }
    for (const name of [...diff.apisAdded, ...diff.apisChanged]) {
      if (before.apis[name] !== undefined) await registry.remove(name);
      this.#addApi(name, next.apis[name]!);
    }
    for (const name of diff.apisRemoved) await registry.remove(name);
    // A tool module whose settings or permissions changed restarts with the new ones.
    const changed = new Set(diff.toolsChanged);
    for (const namespace of registry.list()) {
      if (!(namespace instanceof LocalNamespace) || !changed.has(namespace.name)) continue;
      const name = namespace.name;
      await registry.remove(name);
      this.#addLocal(name, join(this.#rootDir, "tools", `${name}.ts`));
    }
    await this.#addBlocked();
  }

  /**
   * Adds (or updates) a namespace for each `mcpServers` and `apis` entry an unset variable
   * blocks, unless a tool module has its name; one still served from before is stopped first.
   */
  async #addBlocked(): Promise<void> {
    const { registry } = this.#options;
    const envFile = envFilePath(this.#rootDir);
    for (const entry of this.#options.loaded().blocked) {
      if (entry.section === "mcpServers" && this.#hasToolModule(entry.name)) continue;
      const reason = blockedReason(entry, envFile);
      const existing = registry.get(entry.name);
      if (existing instanceof BlockedNamespace && existing.reason === reason) continue;
      if (existing !== undefined) await registry.remove(entry.name);
      registry.add(new BlockedNamespace(entry.name, entry.kind, reason));
    }
  }

  /**
   * Names that are both a tool module and an enabled MCP server: neither is served, whatever
   * order they appeared in (at start or on reload), and `gateway tools` says why.
   */
  clashes(): string[] {
    const loaded = this.#options.loaded();
    return Object.entries(loaded.config.mcpServers)
      .filter(([name, server]) => !server.disabled && this.#hasToolModule(name))
      .map(([name]) =>
        `namespace "${name}" is both the tool module ${
          join(this.#rootDir, "tools", `${name}.ts`)
        } and mcpServers "${name}" in ${
          loaded.mcpJsonFile ?? this.#options.paths.root.configFile ?? "gateway.json"
        }: rename one (neither is served until then)`
      );
  }

  /** Stops watching the tools directory and the signature worker. */
  async stop(): Promise<void> {
    // The upstreams still waiting are not released: a stopping gateway starts no server (each
    // deferred namespace stops waiting when it is stopped).
    clearTimeout(this.#ownStartTimer);
    await this.#watcher?.stop();
  }

  /**
   * Ends the shared tool host and the signature extraction worker (after the namespaces
   * stopped).
   */
  async close(): Promise<void> {
    await this.#sharedToolHosts.stop();
    await this.#signatures.close();
  }

  /** Loads the namespace code the config's `apis` entries need, once. */
  async #loadApiKinds(config: GatewayConfig): Promise<void> {
    const apis = Object.values(config.apis).filter((api) => !api.disabled);
    if (this.#openApi === null && apis.some((api) => api.graphql === undefined)) {
      const { OpenApiNamespace } = await import("../namespaces/openapi/openapi_namespace.ts");
      const options = { baseDir: this.#rootDir, cacheDir: this.#cacheDir };
      this.#openApi = (name, api) => new OpenApiNamespace(name, api, options);
    }
    if (this.#graphql === null && apis.some((api) => api.graphql !== undefined)) {
      const { GraphqlNamespace } = await import("../namespaces/graphql/graphql_namespace.ts");
      this.#graphql = (name, api) => new GraphqlNamespace(name, api);
    }
  }

  /** Adds an `apis` entry (OpenAPI document or GraphQL endpoint) as namespace `name`. */
  #addApi(name: string, api: ApiConfig): void {
    if (api.disabled) return;
    const { registry, log } = this.#options;
    if (registry.get(name)) {
      log.warn(`apis "${name}" has the name of another namespace; the API is skipped`);
      return;
    }
    const make = api.graphql === undefined ? this.#openApi : this.#graphql;
    // #loadApiKinds ran for this config before any entry of it is added.
    if (make === null) throw new Error(`apis "${name}": its namespace code is not loaded`);
    registry.add(make(name, api));
  }

  /** Whether `ROOT/tools/NAME.ts` exists: such a name cannot also be an MCP server's. */
  #hasToolModule(name: string): boolean {
    return existsSync(join(this.#rootDir, "tools", `${name}.ts`));
  }

  /** Adds the tool module `file` as namespace `name`, unless its config disables it. */
  #addLocal(name: string, file: string): void {
    const config = this.#config;
    const configured = config.tools[name] ?? { settings: {}, disabled: false };
    if (configured.disabled) return;
    const server = config.mcpServers[name];
    if (server && !server.disabled) return; // a clash, reported by clashes()
    // The bundled kv and memory keep their data in the shared PostgreSQL when there is one.
    const postgres = config.store.postgres;
    const shares = name === "kv" || name === "memory";
    const toolConfig = shares && postgres !== undefined && !("postgres" in configured.settings)
      ? { ...configured, settings: { ...configured.settings, postgres } }
      : configured;
    const { paths, registry, log, onSpawn } = this.#options;
    registry.add(
      new LocalNamespace(name, {
        file,
        config: toolConfig,
        dataDir: paths.dataDir,
        cacheDir: this.#cacheDir,
        onSpawn,
        signatures: this.#signatures,
        shared: this.#sharedToolHosts,
        logger: log.child(`tools.${name}`),
      }),
    );
  }

  /**
   * An MCP namespace; a stdio server's relative `cwd` is relative to the root, not to us. Its
   * code (the SDK's client half, ajv) loads as it starts, after the server answers.
   */
  #mcpNamespace(name: string, server: McpServerConfig): DeferredMcpNamespace {
    const config = "command" in server && server.cwd !== undefined
      ? { ...server, cwd: resolve(this.#rootDir, server.cwd) }
      : server;
    const { paths, log, onSpawn, protocolLogs } = this.#options;
    return new DeferredMcpNamespace(name, config, {
      logger: log.child(`mcp.${name}`),
      onSpawn,
      ...(protocolLogs ? { protocolLog: protocolLogs.for(name) } : {}),
      dataDir: paths.dataDir,
      loadAfter: this.#upstreams.promise,
    });
  }
}
