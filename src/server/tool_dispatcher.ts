/**
 * The one way a tool is called, whoever asks (a script, `invoke` and `--expose tools` over MCP,
 * RPC `call` and `POST /call`, the dashboard's "try it", `upstream.call`): resolves names,
 * refuses a namespace that is not ready, has the namespace build the request it will send
 * (`prepare`), puts that request through the policy gate, checks a local tool's argument
 * against its type, and sends exactly the request the gate saw with the per-call limits. It
 * alone holds the registry's call claim, so no other part can reach a tool around the gate.
 * The one wording of `NamespaceUnavailable` and of an unknown namespace in `resources` lives
 * here.
 * @module
 */

import type { GatewayConfig } from "../config/gateway_config.ts";
import type {
  CallableNamespaces,
  NamespaceRegistry,
  ResolvedTool,
} from "../namespaces/namespace_registry.ts";
import {
  hasResources,
  type HostRound,
  type Namespace,
  type NamespaceStatus,
  type PreparedCall,
  ToolCallError,
  type ToolCallOptions,
  type ToolProgress,
} from "../namespaces/namespace.ts";
import type { CatalogueNamespace } from "../protocol/catalogue.ts";
import {
  argumentShape,
  FittingShapes,
  localInputProblem,
  type LocalToolPath,
} from "../exec/local_input_check.ts";
import type { CheckedShapes } from "./checked_shapes.ts";
import type { Diagnostic } from "../protocol/run_document.ts";
import { describeStatus } from "../protocol/catalogue.ts";
import type { ApprovalDecision } from "./approvals.ts";
import type { CallPolicy, PolicyTarget } from "./call_policy.ts";

/** How a call is made: limits, the run it belongs to, and how it reports. */
export interface CallOptions {
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
  /** The caller answers the upstream's questions itself (see {@linkcode HostRound}). */
  hostRound?: HostRound;
}

/** What the dispatcher needs from the gateway. */
export interface ToolDispatcherOptions {
  registry: NamespaceRegistry;
  policy: CallPolicy;
  /** The configuration in force (per-call limits). */
  config: () => GatewayConfig;
  /**
   * Type-checks a script against the current globals, or null when no checker is available
   * (local arguments are then left to the tool to validate).
   */
  check: () => ((source: string) => Promise<Diagnostic[]>) | null;
  /**
   * Fitting verdicts kept across restarts (`checked_shapes.ts`): a shape found there needs no
   * check. Absent = only this process's memory.
   */
  checkedShapes?: CheckedShapes;
}

/** The one wording of a call to a namespace that is not ready. */
export function namespaceUnavailable(
  namespace: string,
  status: NamespaceStatus,
  tool: string,
): ToolCallError {
  return new ToolCallError(
    "NamespaceUnavailable",
    `Namespace "${namespace}" is ${
      describeStatus(status)
    }; ${namespace}.${tool} cannot be called now`,
  );
}

/** Routes tool calls to namespaces. */
export class ToolDispatcher {
  readonly #options: ToolDispatcherOptions;
  /** Local-tool argument shapes already checked and fitting (the argument check runs once a shape). */
  readonly #fittingShapes = new FittingShapes();
  readonly #callable: CallableNamespaces;

  /** Claims the registry's calls (see {@linkcode NamespaceRegistry.claimCalls}): one per registry. */
  constructor(options: ToolDispatcherOptions) {
    this.#options = options;
    this.#callable = options.registry.claimCalls();
  }

  /** Forgets checked argument shapes: the tools' types may have changed. */
  catalogueChanged(): void {
    this.#fittingShapes.clear();
  }

  /**
   * Calls one tool: resolves names, builds the request, puts it through the policy gate, and
   * sends it with the per-call limits. Rejects with `ToolCallError`. A call that no policy rule
   * holds and whose argument needs no check (or fits a shape already checked) reaches the
   * namespace in this turn, with no promise of its own in between (every call of every run
   * passes here).
   */
  callTool(
    namespaceName: string,
    toolName: string,
    args: unknown,
    options: CallOptions,
  ): Promise<unknown> {
    const { registry, policy } = this.#options;
    let resolved: ResolvedTool;
    let namespace: Namespace | undefined;
    let prepared: PreparedCall | undefined;
    let targets: PolicyTarget[];
    try {
      resolved = registry.resolve(namespaceName, toolName);
      namespace = this.#callable(resolved.typed.name);
      const state = namespace?.status() ?? { state: "failed", reason: "removed" };
      if (namespace === undefined || state.state !== "ready") {
        return Promise.reject(
          namespaceUnavailable(resolved.namespace.name, state, resolved.tool.originalName),
        );
      }
      prepared = namespace.prepare?.(resolved.tool.originalName, args ?? {});
      // A tool and its arguments that no rule could hold need no request built.
      targets = prepared === undefined
        ? policy.idle(resolved.tool.annotations) ? [] : [targetOf(resolved)]
        : prepared.request.tools.map((tool) => this.#target(resolved, tool));
      if (prepared !== undefined && targets.length === 0) {
        throw new ToolCallError(
          "PolicyDenied",
          `${resolved.typed.name}.${resolved.tool.originalName} was prepared as a request that names no tool: refused`,
        );
      }
    } catch (error) {
      return Promise.reject(error);
    }
    const { tool, typed, identifier } = resolved;
    // Undefined when no rule applies (the usual gateway.json): nothing holds the call.
    const held = targets.length === 0 ? undefined : policy.check({
      namespace: namespace.name,
      targets,
      args: prepared?.request.args ?? (isRecord(args) ? args : {}),
    }, {
      runId: options.runId,
      signal: options.signal,
      onApproval: options.onApproval,
      deadline: options.deadline,
    });
    const path = { namespace: typed.identifier, tool: identifier };
    const checked = namespace.kind !== "local" || options.argsChecked === true;
    const target = namespace;
    // A local argument not checked with the script is shaped once, for both looks below.
    const shape = checked ? null : argumentShape(args, tool.stringValuesDecide !== false);
    if (held === undefined && (checked || this.#fits(path, shape))) {
      return this.#send(target, prepared, tool.originalName, args, options);
    }
    return (async () => {
      await held;
      if (!checked) await this.#validateLocalInput(path, args, typed, shape);
      return await this.#send(target, prepared, tool.originalName, args, options);
    })();
  }

  /**
   * A tool the request runs, as the gate judges it: the called tool as resolved, or another
   * tool of the same namespace by its original name. A request that would run something that
   * is not a tool of the catalogue (a field left out by `include`) is refused.
   */
  #target(resolved: ResolvedTool, tool: string): PolicyTarget {
    if (tool === resolved.tool.originalName) return targetOf(resolved);
    const { typed } = resolved;
    const descriptor = typed.catalogue.tools.find((t) => t.originalName === tool);
    const identifier = typed.toolIdentifiers[tool];
    if (descriptor === undefined || identifier === undefined) {
      throw new ToolCallError(
        "PolicyDenied",
        `${typed.name}.${resolved.tool.originalName} would also run "${tool}", which is not a tool of namespace "${typed.name}": refused`,
      );
    }
    return aliased(typed, tool, identifier, descriptor.annotations);
  }

  /**
   * Sends the call: the prepared request as the gate saw it, or the tool and its arguments to
   * a namespace that needs no preparing. `.raw()` gets the envelope.
   */
  #send(
    namespace: Namespace,
    prepared: PreparedCall | undefined,
    tool: string,
    args: unknown,
    options: CallOptions,
  ): Promise<unknown> {
    const config = this.#options.config();
    const { runId } = options;
    const limits: ToolCallOptions = {
      signal: options.signal,
      callTimeoutMs: options.callTimeoutMs ?? config.exec.callTimeoutMs,
      callMaxMs: config.exec.callMaxMs,
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      ...(options.hostRound ? { hostRound: options.hostRound } : {}),
      // Only a run can wait for a person: a question of the tool's server is held as an
      // approval of the run (outside a run the namespace declines it).
      ...(runId === undefined || namespace.kind !== "mcp" ? {} : {
        askUser: (question: { message: string; fields: Record<string, unknown> }) =>
          this.#options.policy.askForUpstream(
            {
              namespace: namespace.name,
              tool,
              runId,
              signal: options.signal,
              ...(options.deadline === undefined ? {} : { deadline: options.deadline }),
            },
            question,
          ),
      }),
    };
    let sent;
    try {
      if (prepared !== undefined) sent = prepared.send(limits);
      else if (!options.raw && namespace.callValue !== undefined) {
        return namespace.callValue(tool, args ?? {}, limits);
      } else sent = namespace.callTool(tool, args ?? {}, limits);
    } catch (error) {
      return Promise.reject(error);
    }
    if (!options.raw) return sent.then((result) => result.value);
    return sent.then(
      (result) => result.raw,
      (error: unknown) => {
        // `.raw()` hands back the envelope as the tool sent it, `isError` included.
        if (error instanceof ToolCallError && error.raw !== undefined) return error.raw;
        throw error;
      },
    );
  }

  /** Whether a local tool's argument, of `shape`, has a shape already checked and fitting. */
  #fits(path: LocalToolPath, shape: string | null): boolean {
    if (this.#options.check() === null) return true;
    const key = this.#fittingShapes.keyOf(path, shape);
    return key !== null && this.#fittingShapes.has(key);
  }

  /**
   * Checks a local tool's argument against its TypeScript type with the warm checker and
   * fails the call as `InvalidToolInput` when it does not fit. Skipped (the tool validates)
   * when the checker is unavailable.
   */
  async #validateLocalInput(
    path: LocalToolPath,
    args: unknown,
    typed: CatalogueNamespace,
    shape: string | null,
  ): Promise<void> {
    const check = this.#options.check();
    if (check === null) return;
    const key = this.#fittingShapes.keyOf(path, shape);
    if (key === null) {
      await this.#checkLocalInput(path, args, check);
      return;
    }
    if (this.#fittingShapes.has(key)) return;
    const kept = this.#options.checkedShapes;
    let keptKey: string | null = null;
    if (kept !== undefined && shape !== null) {
      await kept.loaded();
      keptKey = kept.key(typed, path.tool, shape);
      if (kept.has(keptKey)) {
        this.#fittingShapes.add(key);
        return;
      }
    }
    if (!await this.#checkLocalInput(path, args, check)) return;
    this.#fittingShapes.add(key);
    // Kept only when the types it was checked against are still the ones keyed: a namespace
    // that changed meanwhile was checked with its new types.
    const now = this.#options.registry.typed().find((ns) => ns.name === typed.name);
    if (kept !== undefined && keptKey !== null && now === typed) kept.add(keptKey);
  }

  /**
   * Checks a local tool's argument; throws `InvalidToolInput` when it does not fit, answers
   * false when the checker could not tell or the argument was not checked (the tool validates).
   */
  async #checkLocalInput(
    path: LocalToolPath,
    args: unknown,
    check: (source: string) => Promise<Diagnostic[]>,
  ): Promise<boolean> {
    let problem: string | null | undefined;
    try {
      problem = await localInputProblem(path, args, check);
    } catch {
      return false;
    }
    if (problem === undefined) return false;
    if (problem !== null) throw new ToolCallError("InvalidToolInput", problem);
    return true;
  }

  /** Resources of an MCP namespace, for the `resources` global. */
  async resources(
    request: { namespace: string; op: "list" | "read"; uri?: string },
  ): Promise<unknown> {
    const { registry } = this.#options;
    const ns = registry.get(request.namespace) ??
      registry.list().find((n) =>
        registry.typed().find((t) => t.name === n.name)?.identifier === request.namespace
      );
    if (!ns) {
      const names = registry.list().filter(hasResources).map((n) => n.name);
      throw new ToolCallError(
        "UnknownTool",
        `Unknown namespace "${request.namespace}" in resources.${request.op}(): the namespaces ` +
          `with resources are: ${names.join(", ") || "(none)"}`,
      );
    }
    if (!hasResources(ns)) {
      throw new ToolCallError(
        "ToolError",
        `Namespace "${ns.name}" has no resources (only MCP servers do)`,
      );
    }
    if (request.op === "list") return await ns.listResources();
    if (!request.uri) throw new ToolCallError("InvalidToolInput", "resources.read needs a uri");
    return await ns.readResource(request.uri);
  }
}

/** The called tool as the gate judges it, under its original name and its identifier. */
function targetOf(resolved: ResolvedTool): PolicyTarget {
  return aliased(
    resolved.typed,
    resolved.tool.originalName,
    resolved.identifier,
    resolved.tool.annotations,
  );
}

function aliased(
  typed: CatalogueNamespace,
  tool: string,
  identifier: string,
  annotations: Record<string, unknown> | undefined,
): PolicyTarget {
  return { tool, aliases: [`${typed.identifier}.${identifier}`], annotations };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
