/**
 * RPC handlers the gateway's own MCP server and dashboard need beyond code mode: every
 * upstream tool with its JSON Schema (`upstream.tools`), a raw call keeping the upstream's
 * content blocks (`upstream.call`), resources across namespaces (`upstream.resources`,
 * `upstream.read`), prompts/completions/subscriptions forwarded (`upstream.request`), and a
 * namespace's stderr tail (`upstream.stderr`). Policy and limits apply as for scripts.
 * @module
 */

import type { UpstreamTool } from "../../protocol/wire_views.ts";
import { z } from "zod";
import { RpcCode, RpcError } from "../../protocol/json_rpc.ts";
import {
  hasResources,
  hasStderrTail,
  hasUpstreamRequests,
  type HostRound,
  ToolCallError,
  type UpstreamMethod,
} from "../../namespaces/namespace.ts";
import type { ListedNamespace, NamespaceRegistry } from "../../namespaces/namespace_registry.ts";
import {
  type CallerContext,
  defineMethod,
  type MethodContext,
  type MethodGroup,
} from "../router.ts";
import type { ResolvedRoot } from "../../config/gateway_paths.ts";
import type { Logger } from "../../logger.ts";
import type { HistoryStore } from "../../store/gateway_store.ts";
import type { LiveCatalogue } from "../catalogue_views.ts";
import type { ToolDispatcher } from "../tool_dispatcher.ts";
import { newRunId } from "../../exec/script_runner.ts";
import { messageOf } from "../../protocol/message_of.ts";
import { settledCatalogue } from "./discovery_methods.ts";
import { lookupToolIdentifier } from "../../protocol/catalogue.ts";
import { LOG_LEVELS } from "../../protocol/mcp_log_levels.ts";

/** The registry's lookups a method finds a namespace by name or identifier with. */
export type NamespaceLookup = Pick<NamespaceRegistry, "get" | "typed" | "list">;

/** What the upstream methods work on. */
export interface UpstreamMethodParts {
  /** The namespaces served as themselves. */
  readonly registry: NamespaceLookup;
  /** Waited on (bounded) before the first listing, while namespaces are still starting. */
  readonly catalogue: Pick<LiveCatalogue, "catalogueReady">;
  /** The one way a tool is called (through the policy gate). */
  readonly dispatcher: Pick<ToolDispatcher, "callTool">;
  /** Where a proxy call is recorded like a one-call script. */
  readonly history: Pick<HistoryStore, "record">;
  /** The root: a recorded proxy call's cwd. */
  readonly root: Pick<ResolvedRoot, "dir">;
  /** Where a failed history write is logged. */
  readonly log: Pick<Logger, "error">;
}

type UpstreamContext = MethodContext<UpstreamMethodParts>;

/** A resource or template of one namespace, with the namespace it came from. */
export interface UpstreamResource {
  namespace: string;
  uri?: string;
  uriTemplate?: string;
  name: string;
  description?: string;
  mimeType?: string;
}

const UPSTREAM_METHODS = [
  "prompts/list",
  "prompts/get",
  "completion/complete",
  "resources/read",
  "resources/subscribe",
  "resources/unsubscribe",
] as const satisfies readonly UpstreamMethod[];

/**
 * The host of a namespace served as itself, on a request it answers the upstream's questions
 * for: what it can be asked, its answers and state from the last round, and its log level.
 */
const HOST_ROUND = z.strictObject({
  capabilities: z.record(z.string(), z.unknown()),
  inputResponses: z.record(z.string(), z.unknown()).optional(),
  requestState: z.string().optional(),
  logLevel: z.enum(LOG_LEVELS).optional(),
});

/**
 * The {@linkcode HostRound} of a request from `host`, its upstream's log messages sent on as
 * `upstream.log` notifications of the request.
 */
function hostRoundOf(
  host: z.infer<typeof HOST_ROUND> | undefined,
  namespace: string,
  context: CallerContext,
): HostRound | undefined {
  if (host === undefined) return undefined;
  const notify = context.notify;
  return {
    capabilities: host.capabilities,
    ...(host.inputResponses === undefined ? {} : { inputResponses: host.inputResponses }),
    ...(host.requestState === undefined ? {} : { requestState: host.requestState }),
    ...(host.logLevel === undefined ? {} : { logLevel: host.logLevel }),
    ...(notify === undefined
      ? {}
      : { onLog: (message) => notify("upstream.log", { namespace, ...message }) }),
  };
}

/**
 * The error a host round's caller gets: the upstream's own JSON-RPC error as it sent it (the
 * namespace is served as itself), anything else as usual.
 */
function asHostError(error: unknown, host: unknown): unknown {
  if (host === undefined || !(error instanceof ToolCallError)) return error;
  const upstream = error.upstreamError;
  if (upstream === undefined) return error;
  return new RpcError(
    upstream.code,
    upstream.message,
    typeof upstream.data === "object" && upstream.data !== null && !Array.isArray(upstream.data)
      ? upstream.data as Record<string, unknown>
      : upstream.data === undefined
      ? undefined
      : { data: upstream.data },
  );
}

/** Namespace `name` (its configured name or its identifier); InvalidParams naming the known ones. */
export function namespaceNamed(registry: NamespaceLookup, name: string): ListedNamespace {
  const direct = registry.get(name);
  if (direct) return direct;
  const typed = registry.typed().find((t) => t.identifier === name);
  const found = typed ? registry.get(typed.name) : undefined;
  if (found) return found;
  throw new RpcError(
    RpcCode.InvalidParams,
    `Unknown namespace "${name}" (known: ${
      registry.list().map((n) => n.name).join(", ") || "none"
    })`,
  );
}

/**
 * A local tool has TypeScript types but no JSON Schema: its parameter names, docs and
 * required-ness still make an honest (untyped) object schema for forms and MCP hosts.
 */
function schemaFromParams(
  params: { name: string; description: string; required: boolean }[],
): Record<string, unknown> {
  return {
    type: "object",
    properties: Object.fromEntries(
      params.map((p) => [p.name, p.description ? { description: p.description } : {}]),
    ),
    required: params.filter((p) => p.required).map((p) => p.name),
  };
}

/**
 * A proxy call goes into history like a one-call script (`client: "mcp-proxy"`), so
 * `gateway history` shows what a host that cannot write code did.
 */
async function recordProxyCall(
  context: UpstreamContext,
  namespace: string,
  tool: string,
  args: Record<string, unknown>,
  startedAt: number,
  outcome: { value: unknown; error: ToolCallError | null },
): Promise<void> {
  const durationMs = Date.now() - startedAt;
  const failed = outcome.error !== null;
  try {
    await context.history.record({
      runId: newRunId(),
      startedAt,
      durationMs,
      source: `await tools[${JSON.stringify(namespace)}][${JSON.stringify(tool)}](${
        JSON.stringify(args)
      })`,
      args: [],
      stdinBytes: 0,
      cwd: context.root.dir,
      client: "mcp-proxy",
      status: failed ? "failed" : "ok",
      errorKind: outcome.error?.kind ?? null,
      errorMessage: outcome.error?.message ?? null,
      stdout: "",
      stderr: "",
      result: outcome.value === undefined ? null : JSON.stringify(outcome.value),
      exitCode: null,
      toolCalls: [{
        namespace,
        tool,
        startedAt,
        durationMs,
        ok: !failed,
        errorKind: outcome.error?.kind ?? null,
        ...(outcome.error
          ? { result: outcome.error.message }
          : outcome.value === undefined
          ? {}
          : { result: JSON.stringify(outcome.value) }),
      }],
      name: null,
    });
  } catch (error) {
    context.log.error("history write of a proxy call failed", { error: String(error) });
  }
}

/** The handlers, keyed by method name. */
export const upstreamMethods: MethodGroup<UpstreamMethodParts> = {
  "upstream.tools": defineMethod(z.strictObject({}), async (_params, context) => {
    // Right after a cold start the configured namespaces are still starting: a host caches
    // its first listing, so it waits (bounded) for them; later ones announce a list change.
    await settledCatalogue(context.catalogue);
    const tools: UpstreamTool[] = [];
    for (const ns of context.registry.typed()) {
      if (ns.status.state !== "ready") continue;
      for (const tool of ns.catalogue.tools) {
        tools.push({
          namespace: ns.name,
          identifier: ns.identifier,
          name: tool.originalName,
          toolIdentifier: lookupToolIdentifier(ns, tool.originalName) ?? tool.originalName,
          description: tool.description,
          inputSchema: tool.inputSchema ?? schemaFromParams(tool.params),
          ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
          ...(tool.annotations ? { annotations: tool.annotations } : {}),
        });
      }
    }
    return { tools };
  }),
  "upstream.call": defineMethod(
    z.strictObject({
      namespace: z.string(),
      tool: z.string(),
      args: z.record(z.string(), z.unknown()).optional(),
      host: HOST_ROUND.optional(),
    }),
    async (params, context) => {
      const startedAt = Date.now();
      const args = params.args ?? {};
      const hostRound = hostRoundOf(params.host, params.namespace, context);
      let outcome: { value: unknown; error: ToolCallError | null };
      try {
        outcome = {
          value: await context.dispatcher.callTool(params.namespace, params.tool, args, {
            raw: true,
            signal: context.signal,
            ...(context.notify
              ? {
                onProgress: (progress) =>
                  context.notify?.("upstream.progress", { ...progress, tool: params.tool }),
              }
              : {}),
            ...(hostRound === undefined ? {} : { hostRound }),
          }),
          error: null,
        };
      } catch (error) {
        if (!(error instanceof ToolCallError)) throw error;
        outcome = { value: error.raw ?? null, error };
      }
      await recordProxyCall(context, params.namespace, params.tool, args, startedAt, outcome);
      // The tool said no: its own envelope (isError) goes back as the upstream sent it.
      if (outcome.error && !outcome.error.raw) throw asHostError(outcome.error, params.host);
      return outcome.value;
    },
  ),
  "upstream.resources": defineMethod(z.strictObject({}), async (_params, context) => {
    const resources: UpstreamResource[] = [];
    const templates: UpstreamResource[] = [];
    const warnings: string[] = [];
    for (const ns of context.registry.list()) {
      if (!hasResources(ns) || ns.status().state !== "ready") continue;
      try {
        const listing = await ns.listResources();
        for (const r of listing.resources) resources.push({ namespace: ns.name, ...r });
        for (const t of listing.templates) templates.push({ namespace: ns.name, ...t });
      } catch (error) {
        warnings.push(messageOf(error));
      }
    }
    return { resources, templates, warnings };
  }),
  "upstream.read": defineMethod(
    z.strictObject({ namespace: z.string(), uri: z.string(), host: HOST_ROUND.optional() }),
    async (params, context) => {
      const ns = namespaceNamed(context.registry, params.namespace);
      const hostRound = hostRoundOf(params.host, ns.name, context);
      if (hostRound !== undefined && hasUpstreamRequests(ns)) {
        try {
          return await ns.upstreamRequest("resources/read", { uri: params.uri }, hostRound);
        } catch (error) {
          throw asHostError(error, params.host);
        }
      }
      if (!hasResources(ns)) {
        throw new RpcError(
          RpcCode.InvalidParams,
          `Namespace "${ns.name}" has no resources (only MCP servers do)`,
        );
      }
      return await ns.readResource(params.uri);
    },
  ),
  "upstream.request": defineMethod(
    z.strictObject({
      namespace: z.string(),
      method: z.enum(UPSTREAM_METHODS),
      params: z.record(z.string(), z.unknown()).optional(),
      host: HOST_ROUND.optional(),
    }),
    async (params, context) => {
      const ns = namespaceNamed(context.registry, params.namespace);
      if (!hasUpstreamRequests(ns)) {
        throw new RpcError(
          RpcCode.InvalidParams,
          `Namespace "${ns.name}" is a ${ns.kind} namespace: ${params.method} needs an MCP server`,
        );
      }
      const hostRound = hostRoundOf(params.host, ns.name, context);
      try {
        return { value: await ns.upstreamRequest(params.method, params.params ?? {}, hostRound) };
      } catch (error) {
        throw asHostError(error, params.host);
      }
    },
  ),
  "upstream.stderr": defineMethod(
    z.strictObject({ namespace: z.string(), lines: z.number().int().positive().optional() }),
    (params, context) => {
      const ns = namespaceNamed(context.registry, params.namespace);
      const tail = hasStderrTail(ns) ? ns.stderrTail() : "";
      const lines = tail.split("\n").filter((l) => l.length > 0);
      return Promise.resolve({
        namespace: ns.name,
        lines: lines.slice(-(params.lines ?? 20)),
      });
    },
  ),
};
