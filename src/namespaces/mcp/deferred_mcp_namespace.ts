/**
 * An MCP namespace whose code (the SDK's client half with its zod schemas and ajv, the
 * supervisor) loads when it starts, not when the server starts: the gateway answers `/health`
 * as up without paying for that code's module evaluation first. Until the code is in,
 * the namespace says "starting" with no tools, and every call or upstream request waits for it,
 * as it would wait for the upstream's connection.
 * @module
 */

import type { McpServerConfig } from "../../config/gateway_config.ts";
import {
  type HostRound,
  type Namespace,
  type NamespaceCapability,
  type NamespaceCatalogue,
  type NamespaceStatus,
  type ResourceContents,
  type ResourceListing,
  type Resources,
  type StderrTail,
  ToolCallError,
  type ToolCallOptions,
  type ToolCallResult,
  type UpstreamEvents,
  type UpstreamLogMessage,
  type UpstreamMethod,
  type UpstreamRequests,
} from "../namespace.ts";
import type { McpNamespace, McpNamespaceOptions } from "./mcp_namespace.ts";
import { SILENT_LOGGER } from "../../logger.ts";
import { ChangeListeners } from "../change_listeners.ts";
import { messageOf } from "../../protocol/message_of.ts";

const EMPTY: NamespaceCatalogue = { tools: [], declarations: "", warnings: [] };

/**
 * The namespace code in steps, with the event loop running between them: each step blocks the
 * thread while it evaluates (ajv, the SDK's zod schemas, its client, the node compat
 * code of child processes), and the server answers requests meanwhile (as staged_import.ts).
 */
const STEPS: (() => Promise<unknown>)[] = [
  () => import("ajv"),
  () => import("@modelcontextprotocol/client"),
  // The stdio transport's child processes and pipes (a good deal of node compat code).
  () => import("node:child_process"),
  () => import("./mcp_namespace.ts"),
];

/** The event loop's time between two steps. */
const STEP_GAP_MS = 5;

let code: Promise<typeof McpNamespace> | null = null;

/** Loads the MCP namespace code once per process, step by step. */
function loadMcpNamespaceCode(): Promise<typeof McpNamespace> {
  code ??= (async () => {
    for (const step of STEPS) {
      // A few ms of event loop before each step: a request in flight (the CLI's `/health`
      // poll right after the start) needs several turns to be read and answered, and one
      // `setTimeout(0)` gives it only one.
      await new Promise((resolve) => setTimeout(resolve, STEP_GAP_MS));
      await step();
    }
    return (await import("./mcp_namespace.ts")).McpNamespace; // loaded by the last step
  })();
  return code;
}

/** What a deferred namespace needs besides the McpNamespace options. */
export interface DeferredMcpNamespaceOptions extends McpNamespaceOptions {
  /** The code loads once this settles (the gateway answering), so it never delays that. */
  loadAfter?: Promise<unknown>;
}

/**
 * Stands for an {@linkcode McpNamespace} until its module is loaded, then forwards everything
 * to it. Same contract as McpNamespace (status, catalogue, calls, resources, upstream
 * requests, log and resource-update listeners).
 */
export class DeferredMcpNamespace
  implements Namespace, Resources, UpstreamRequests, StderrTail, UpstreamEvents {
  /** The `mcpServers` key. */
  readonly name: string;
  /** Always "mcp". */
  readonly kind = "mcp" as const;
  /** McpNamespace's, stated before its code loads (each waits for it or answers empty). */
  readonly capabilities: ReadonlySet<NamespaceCapability> = new Set([
    "resources",
    "upstream-requests",
    "stderr-tail",
    "upstream-events",
  ]);
  readonly #config: McpServerConfig;
  readonly #options: DeferredMcpNamespaceOptions;
  readonly #listeners: ChangeListeners;
  #loaded = Promise.withResolvers<McpNamespace>();
  #real: McpNamespace | null = null;
  #loadError: string | null = null;
  #started: Promise<void> | null = null;
  #stopped = false;
  /** Counts starts, so a start that a stop and a new start overtook gives way. */
  #generation = 0;
  #stopping = Promise.withResolvers<void>();

  constructor(name: string, config: McpServerConfig, options: DeferredMcpNamespaceOptions) {
    this.name = name;
    this.#config = config;
    this.#options = options;
    this.#listeners = new ChangeListeners(name, options.logger ?? SILENT_LOGGER);
    // A caller waiting on a namespace that is stopped before its code loaded is told so.
    this.#loaded.promise.catch(() => {});
    // Disabled: nothing ever loads, and every call is told so at once.
    if (config.disabled) {
      this.#loaded.reject(new ToolCallError("NamespaceUnavailable", this.#unavailable()));
    }
  }

  /**
   * "starting" until the code loads (or `failed` when it cannot), then the namespace's own;
   * "disabled" for a disabled server, whose code never loads.
   */
  status(): NamespaceStatus {
    if (this.#real !== null) return this.#real.status();
    if (this.#config.disabled) return { state: "disabled" };
    if (this.#loadError !== null) return { state: "failed", reason: this.#loadError };
    if (this.#stopped) return { state: "failed", reason: "stopped" };
    return { state: "starting" };
  }

  /** Empty until the code loads. */
  catalogue(): NamespaceCatalogue {
    return this.#real?.catalogue() ?? EMPTY;
  }

  /** The kept end of the stdio child's stderr ("" before the code loads). */
  stderrTail(): string {
    return this.#real?.stderrTail() ?? "";
  }

  /** Process id of the running stdio child, if any. */
  get pid(): number | undefined {
    return this.#real?.pid;
  }

  /** The transport of the live connection. */
  get connectedVia(): "stdio" | "streamable-http" | "sse" | undefined {
    return this.#real?.connectedVia;
  }

  /**
   * Loads the namespace code, then connects; resolves once ready or failed (never rejects).
   * After `stop()` it starts again (`gateway auth login` reconnects that way).
   */
  start(): Promise<void> {
    if (this.#config.disabled) return Promise.resolve();
    if (this.#real !== null) {
      this.#stopped = false;
      return this.#real.start();
    }
    if (this.#stopped) {
      this.#stopped = false;
      this.#started = null;
      this.#loadError = null;
      this.#stopping = Promise.withResolvers<void>();
      this.#loaded = Promise.withResolvers<McpNamespace>();
      this.#loaded.promise.catch(() => {});
    }
    this.#started ??= this.#start();
    return this.#started;
  }

  async #start(): Promise<void> {
    const generation = ++this.#generation;
    const overtaken = () => this.#stopped || generation !== this.#generation;
    let real: McpNamespace;
    try {
      const { loadAfter, ...options } = this.#options;
      // Stopping before the gateway's start is over ends this start too.
      await Promise.race([loadAfter, this.#stopping.promise]);
      if (overtaken()) return;
      const McpNamespace = await loadMcpNamespaceCode();
      if (overtaken()) return;
      real = new McpNamespace(this.name, this.#config, options);
    } catch (error) {
      this.#loadError = `cannot load the MCP namespace code: ${messageOf(error)}`;
      this.#loaded.reject(new ToolCallError("NamespaceUnavailable", this.#unavailable()));
      this.#listeners.notify();
      return;
    }
    this.#real = real;
    real.onChange(() => this.#listeners.notify());
    this.#loaded.resolve(real);
    this.#listeners.notify();
    await real.start();
  }

  /** Ends the namespace (or keeps its code from starting one); idempotent. */
  async stop(): Promise<void> {
    if (!this.#stopped) {
      this.#stopped = true;
      this.#stopping.resolve();
      if (this.#real === null) {
        this.#loaded.reject(new ToolCallError("NamespaceUnavailable", this.#unavailable()));
        this.#listeners.notify();
      }
    }
    await this.#real?.stop();
  }

  #unavailable(): string {
    const status = this.status();
    return `MCP server "${this.name}" is unavailable: ${
      status.state === "failed" ? status.reason : status.state
    }`;
  }

  /** Registers `listener` for status and catalogue changes; returns its unsubscribe function. */
  onChange(listener: () => void): () => void {
    return this.#listeners.add(listener);
  }

  /** Calls MCP tool `tool` once the code is loaded (see McpNamespace.callTool). */
  callTool(tool: string, args: unknown, options: ToolCallOptions): Promise<ToolCallResult> {
    // Once loaded, straight to the namespace (no promise layers on every call); until then the
    // call waits for the code, and the namespace itself honours the signal and timeouts.
    if (this.#real !== null) return this.#real.callTool(tool, args, options);
    return this.#loaded.promise.then((real) => real.callTool(tool, args, options));
  }

  /** The upstream's resources and templates. */
  async listResources(): Promise<ResourceListing> {
    return await (await this.#loaded.promise).listResources();
  }

  /** One resource's contents. */
  async readResource(uri: string): Promise<ResourceContents> {
    return await (await this.#loaded.promise).readResource(uri);
  }

  /** Forwards an MCP request the gateway relays (prompts, completion, …). */
  async upstreamRequest(
    method: UpstreamMethod,
    params: Record<string, unknown>,
    hostRound?: HostRound,
  ): Promise<unknown> {
    return await (await this.#loaded.promise).upstreamRequest(method, params, hostRound);
  }

  /** Registers a listener for the upstream's log messages, kept across the code's load. */
  onLogMessage(listener: (message: UpstreamLogMessage) => void): () => void {
    return this.#whenLoaded((real) => real.onLogMessage(listener));
  }

  /** Registers a listener for resource updates, kept across the code's load. */
  onResourceUpdated(listener: (uri: string) => void): () => void {
    return this.#whenLoaded((real) => real.onResourceUpdated(listener));
  }

  /** Runs `subscribe` on the namespace now or once loaded; the result unsubscribes either way. */
  #whenLoaded(subscribe: (real: McpNamespace) => () => void): () => void {
    if (this.#real !== null) return subscribe(this.#real);
    let unsubscribe: (() => void) | null = null;
    let gone = false;
    this.#loaded.promise.then((real) => {
      if (!gone) unsubscribe = subscribe(real);
    }, () => {});
    return () => {
      gone = true;
      unsubscribe?.();
    };
  }
}
