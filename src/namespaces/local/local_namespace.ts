/**
 * A local `.ts` tool module as a {@linkcode Namespace}: signatures from the cached
 * ts-morph worker, calls through a tool host (a Worker of the shared host, or a subprocess of its
 * own), reload on change.
 * @module
 */

import { existsSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { ToolModuleConfig } from "../../config/gateway_config.ts";
import type { LogMethods } from "../../logger.ts";
import {
  type Namespace,
  type NamespaceCatalogue,
  type NamespaceStatus,
  NO_CAPABILITIES,
  type RawToolResult,
  ToolCallError,
  type ToolCallOptions,
  type ToolCallResult,
  type ToolDescriptor,
} from "../namespace.ts";
import { unknownToolError } from "../unknown_tool_error.ts";
import type { SharedToolHosts } from "./shared_tool_host.ts";
import { ToolHost, type ToolHostState } from "./tool_host.ts";
import { type ModuleSignatures, ToolModuleSignatures } from "./tool_module_signatures.ts";
import { messageOf } from "../../protocol/message_of.ts";

/** Settings of a {@linkcode LocalNamespace}. */
export interface LocalNamespaceOptions {
  /** Absolute path of the module, e.g. `ROOT/tools/kv.ts`. */
  file: string;
  /** `tools.<name>` from `gateway.json` (permissions, settings, disabled). */
  config: ToolModuleConfig;
  /** The gateway's data dir, handed to the module as `GATEWAY_DATA_DIR`. */
  dataDir: string;
  /** Told the pid of every tool host started (the process ledger). */
  onSpawn?: (pid: number) => void;
  /**
   * The server's shared tool host: the module runs there as a Worker with its own permissions
   * unless `tools.NAME.isolate` (or `maxMemoryMb`) asks for a process of its own. Absent = a
   * process of its own.
   */
  shared?: SharedToolHosts;
  /** On-disk signature cache, used when no shared `signatures` is given. */
  cacheDir: string;
  /** @default {console} */
  logger?: LogMethods;
  /**
   * A signature extractor shared by all local namespaces (one worker, one cache). When absent
   * the namespace makes its own and closes it on `stop()`.
   */
  signatures?: ToolModuleSignatures;
  /**
   * The module as users see it in messages.
   * @default {"<directory name>/<file name>", e.g. "tools/kv.ts"}
   */
  label?: string;
  /** Longest import before the namespace is `failed`. @default {10000} */
  loadTimeoutMs?: number;
  /** How long a reload waits for calls on the old host to finish. @default {30000} */
  reloadDrainMs?: number;
  /** Passed to the tool host (tests shorten them). */
  restartDelayMs?: number;
  abortGraceMs?: number;
  killGraceMs?: number;
}

/** What one successful load produced. */
interface Loaded {
  text: string;
  signatures: ModuleSignatures;
}

const EMPTY_CATALOGUE: NamespaceCatalogue = { tools: [], declarations: "", warnings: [] };

/**
 * One tool module served as a namespace. `start()` reads the file, extracts signatures (in the
 * worker) and starts the tool host in parallel; it is ready when both succeed and `failed`
 * (reason: file, line, message) otherwise. Nothing here throws out of `start`/`stop`/`reload`.
 *
 * @example
 * ```ts ignore
 * const kv = new LocalNamespace("kv", {
 *   file: "/root/tools/kv.ts",
 *   config: { settings: {}, disabled: false },
 *   dataDir: "/data",
 *   cacheDir: "/data/cache/tool-signatures",
 * });
 * await kv.start();
 * const { value } = await kv.callTool("get", { key: "a" }, {
 *   signal: new AbortController().signal,
 *   callTimeoutMs: 60_000,
 *   callMaxMs: 600_000,
 * });
 * await kv.stop();
 * ```
 */
export class LocalNamespace implements Namespace {
  /** The file stem (before sanitising). */
  readonly name: string;
  readonly kind = "local" as const;
  /** None of the optional ones. */
  readonly capabilities = NO_CAPABILITIES;
  #options: LocalNamespaceOptions;
  #logger: LogMethods;
  #signatures: ToolModuleSignatures;
  #ownsSignatures: boolean;
  #signaturesClosed = false;
  #status: NamespaceStatus = { state: "starting" };
  #catalogue: NamespaceCatalogue = EMPTY_CATALOGUE;
  #passEmptyObject = new Set<string>();
  #host: ToolHost | undefined;
  /** Every host not yet stopped: the current one, one still loading, old ones draining. */
  #hosts = new Set<ToolHost>();
  #loaded: Loaded | undefined;
  #generation = 0;
  /** The newest load; start/reload wait until no newer one replaced it. */
  #latestLoad: Promise<void> = Promise.resolve();
  #listeners = new Set<() => void>();
  #stopped = false;

  constructor(name: string, options: LocalNamespaceOptions) {
    this.name = name;
    this.#options = options;
    this.#logger = options.logger ?? console;
    this.#ownsSignatures = options.signatures === undefined;
    this.#signatures = options.signatures ??
      new ToolModuleSignatures({ cacheDir: options.cacheDir });
    if (options.config.disabled) this.#status = { state: "disabled" };
  }

  /** A copy of the current status: later changes never alter what a caller holds. */
  status(): NamespaceStatus {
    return { ...this.#status };
  }

  catalogue(): NamespaceCatalogue {
    return this.#catalogue;
  }

  /** Loads the module; resolves when ready or failed, never rejects. */
  async start(): Promise<void> {
    if (this.#options.config.disabled) {
      this.#setStatus({ state: "disabled" });
      return;
    }
    this.#stopped = false;
    if (this.#ownsSignatures && this.#signaturesClosed) {
      this.#signatures = new ToolModuleSignatures({ cacheDir: this.#options.cacheDir });
      this.#signaturesClosed = false;
    }
    await this.#loadAndSettle();
  }

  /**
   * Re-reads the file and swaps in a new host; calls in flight finish on the old one (up to the
   * drain time). Does nothing when the text is unchanged and the namespace is ready, unless
   * `force` is set. Never rejects.
   */
  async reload(options?: { force?: boolean }): Promise<void> {
    if (this.#options.config.disabled || this.#stopped) return;
    if (options?.force !== true && this.#status.state === "ready") {
      const text = await this.#readText();
      if (text !== undefined && text === this.#loaded?.text) return;
    }
    await this.#loadAndSettle();
  }

  /** Stops the tool host (and the own signature worker); idempotent. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#generation++;
    this.#host = undefined;
    await Promise.all([...this.#hosts].map((host) => this.#stopHost(host)));
    if (this.#ownsSignatures) {
      await this.#signatures.close();
      this.#signaturesClosed = true;
    }
    if (this.#status.state !== "disabled") {
      this.#setStatus({ state: "failed", reason: `namespace "${this.name}" is stopped` });
    }
  }

  /** Calls a tool; its envelope is built only when asked for (`.raw()`, the MCP server). */
  callTool(tool: string, args: unknown, options: ToolCallOptions): Promise<ToolCallResult> {
    return this.callValue(tool, args, options).then((value) => ({
      value,
      get raw(): RawToolResult {
        return value === undefined
          ? { content: [] }
          : { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value };
      },
    }));
  }

  /** The tool's return value as the host answered it (see {@linkcode Namespace.callValue}). */
  callValue(tool: string, args: unknown, options: ToolCallOptions): Promise<unknown> {
    const status = this.#status;
    const host = this.#host;
    // A host that is restarting (status failed) still gets the call: it waits for the restart
    // or answers NamespaceUnavailable with the reason.
    if (host === undefined || status.state === "disabled") return this.#unavailable(status);
    if (!this.#catalogue.tools.some((t) => t.originalName === tool)) {
      // A failed module's catalogue may be empty: the namespace, not the name, is the problem.
      if (status.state !== "ready") return this.#unavailable(status);
      const known = this.#catalogue.tools.map((t) => t.originalName);
      return Promise.reject(unknownToolError(this.name, tool, known));
    }
    const argument = args === undefined && this.#passEmptyObject.has(tool) ? {} : args;
    return host.call(tool, argument, {
      timeoutMs: Math.min(options.callTimeoutMs, options.callMaxMs),
      signal: options.signal,
    });
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Starts a load and waits for it, or for the loads that superseded it while it ran. */
  async #loadAndSettle(): Promise<void> {
    let load = this.#load();
    this.#latestLoad = load;
    await load;
    while (this.#latestLoad !== load) {
      load = this.#latestLoad;
      await load;
    }
  }

  async #load(): Promise<void> {
    const generation = ++this.#generation;
    const label = this.#label();
    const previous = this.#host;
    if (this.#status.state !== "ready") this.#setStatus({ state: "starting" });

    const text = await this.#readText();
    if (generation !== this.#generation) return;
    if (text === undefined) {
      this.#replaceHost(undefined, previous);
      this.#catalogue = EMPTY_CATALOGUE;
      this.#loaded = undefined;
      this.#setStatus({
        state: "failed",
        reason: `Cannot load tool module "${label}": the file cannot be read`,
      });
      return;
    }

    const host = this.#createHost(generation);
    const [signatures, started] = await Promise.allSettled([
      this.#signatures.extract(label, text),
      host.start(),
    ]);
    if (generation !== this.#generation) {
      await this.#stopHost(host);
      return;
    }
    if (signatures.status === "rejected") {
      await this.#stopHost(host);
      this.#replaceHost(undefined, previous);
      this.#catalogue = EMPTY_CATALOGUE;
      this.#passEmptyObject = new Set();
      this.#loaded = undefined;
      this.#setStatus({ state: "failed", reason: messageOf(signatures.reason) });
      return;
    }
    this.#loaded = { text, signatures: signatures.value };
    this.#passEmptyObject = new Set(
      signatures.value.tools.filter((t) => t.passEmptyObject).map((t) => t.descriptor.originalName),
    );
    this.#catalogue = {
      tools: signatures.value.tools.map((t): ToolDescriptor => t.descriptor),
      declarations: signatures.value.declarations,
      warnings: signatures.value.warnings,
    };
    this.#replaceHost(host, previous);
    this.#setStatus(
      started.status === "fulfilled"
        ? this.#statusOf(host.state())
        : { state: "failed", reason: messageOf(started.reason) },
    );
  }

  #createHost(generation: number): ToolHost {
    const options = this.#options;
    const host = new ToolHost({
      name: this.name,
      file: options.file,
      label: this.#label(),
      permissions: options.config.permissions,
      settings: options.config.settings,
      dataDir: options.dataDir,
      configPath: rootConfig(options.file),
      logger: this.#logger,
      ...(options.config.maxMemoryMb ? { maxMemoryMb: options.config.maxMemoryMb } : {}),
      ...(options.onSpawn ? { onSpawn: options.onSpawn } : {}),
      ...(options.shared ? { shared: options.shared } : {}),
      isolate: options.config.isolate ?? options.config.maxMemoryMb !== undefined,
      ...(options.loadTimeoutMs === undefined ? {} : { loadTimeoutMs: options.loadTimeoutMs }),
      ...(options.restartDelayMs === undefined ? {} : { restartDelayMs: options.restartDelayMs }),
      ...(options.abortGraceMs === undefined ? {} : { abortGraceMs: options.abortGraceMs }),
      ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
      onStateChange: (state) => {
        // Only the current host of the current load speaks for the namespace.
        if (generation !== this.#generation || this.#host !== host) return;
        this.#setStatus(this.#statusOf(state));
      },
    });
    this.#hosts.add(host);
    return host;
  }

  async #stopHost(host: ToolHost, options?: { drainMs?: number }): Promise<void> {
    try {
      await host.stop(options);
    } catch (error) {
      this.#logger.error(`Cannot stop a tool host for "${this.name}": ${messageOf(error)}`);
    } finally {
      this.#hosts.delete(host);
    }
  }

  /** Makes `next` current; the old host finishes its calls in flight, then stops. */
  #replaceHost(next: ToolHost | undefined, previous: ToolHost | undefined): void {
    this.#host = next;
    if (previous !== undefined && previous !== next) {
      void this.#stopHost(previous, { drainMs: this.#options.reloadDrainMs ?? 30_000 });
    }
  }

  #statusOf(state: ToolHostState): NamespaceStatus {
    switch (state.state) {
      case "ready":
        return { state: "ready" };
      case "starting":
        return state.lastFailure === undefined
          ? { state: "starting" }
          : { state: "failed", reason: `${state.lastFailure} (restarting)` };
      case "waiting": {
        const seconds = Math.max(0, (state.retryAt - Date.now()) / 1000);
        return { state: "failed", reason: `${state.reason} (retrying in ${seconds.toFixed(1)} s)` };
      }
      case "stopped":
        return { state: "failed", reason: `tool host for "${this.name}" is stopped` };
    }
  }

  /** A call's failure while the namespace cannot take calls, with the reason. */
  #unavailable(status: NamespaceStatus): Promise<never> {
    const message = status.state === "failed"
      ? `namespace "${this.name}" is unavailable: ${status.reason}`
      : status.state === "disabled"
      ? `namespace "${this.name}" is disabled in gateway.json`
      : `namespace "${this.name}" is still starting`;
    return Promise.reject(new ToolCallError("NamespaceUnavailable", message));
  }

  async #readText(): Promise<string | undefined> {
    try {
      return await Deno.readTextFile(this.#options.file);
    } catch {
      return undefined;
    }
  }

  #label(): string {
    return this.#options.label ??
      `${basename(dirname(this.#options.file))}/${basename(this.#options.file)}`;
  }

  #setStatus(status: NamespaceStatus): void {
    const before = this.#status;
    this.#status = status;
    if (JSON.stringify(before) === JSON.stringify(status) && status.state !== "ready") return;
    for (const listener of [...this.#listeners]) {
      try {
        listener();
      } catch (error) {
        this.#logger.error(`namespace "${this.name}" change listener failed: ${String(error)}`);
      }
    }
  }
}

/**
 * The root's `deno.json`/`deno.jsonc` (the parent of the module's directory), whose import map
 * a module may use; null when there is none, so the host runs with `--no-config`.
 */
function rootConfig(file: string): string | null {
  const root = dirname(dirname(file));
  for (const name of ["deno.json", "deno.jsonc"]) {
    const path = join(root, name);
    if (existsSync(path)) return path;
  }
  return null;
}
