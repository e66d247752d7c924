/**
 * RPC handlers the dashboard needs beyond the CLI's: `events.subscribe` (live pushes over the
 * WebSocket: runs started/finished, approvals held/answered, namespace changes, upstream
 * resources updated and upstream log messages — so the page and the MCP server never poll),
 * `check` (type errors of a script against the live types, for the editor),
 * `namespace.restart`, `history.search` (filters and paging), `history.save` (a run that
 * worked becomes a named script, as `gateway history save` does) and `approval.answered` (the
 * answered approvals, from history, so the list outlives a reload).
 * @module
 */

import { z } from "zod";
import { RpcCode, RpcError } from "../../protocol/json_rpc.ts";
import { defineMethod, type MethodGroup } from "../router.ts";
import { hasUpstreamEvents } from "../../namespaces/namespace.ts";
import { typedToolName } from "../../protocol/typed_tool_name.ts";
import { saveRunAsScript } from "../saved_script.ts";
import type { ResolvedRoot } from "../../config/gateway_paths.ts";
import type { NamespaceRegistry } from "../../namespaces/namespace_registry.ts";
import type { Diagnostic } from "../../protocol/run_document.ts";
import type { HistoryStore } from "../../store/gateway_store.ts";
import type { Approvals } from "../approvals.ts";
import type { LiveCatalogue } from "../catalogue_views.ts";
import type { RunTracker } from "../run_tracker.ts";

/**
 * Type-checks a script against the live tool types without running it: the gateway core
 * implements it, since the check waits for the namespaces the script uses to be started.
 */
export interface ScriptChecking {
  /** The script's diagnostics; none when it type-checks. */
  checkSource(source: string): Promise<Diagnostic[]>;
}

/** What the dashboard's methods work on. */
export interface DashboardMethodParts {
  /** The namespaces: their changes, resource updates and log messages are pushed. */
  readonly registry: Pick<NamespaceRegistry, "list" | "get" | "onChange" | "toolMap">;
  /** Runs starting and finishing, pushed. */
  readonly runs: Pick<RunTracker, "onRun">;
  /** Calls held and answered, pushed. */
  readonly approvals: Pick<Approvals, "onRequest" | "onAnswer">;
  /** The namespace list pushed on a change. */
  readonly catalogue: Pick<LiveCatalogue, "namespaceList">;
  /** Stored runs and answered approvals. */
  readonly history: Pick<HistoryStore, "list" | "get" | "answeredApprovals">;
  /** The editor's diagnostics. */
  readonly checker: ScriptChecking;
  /** The root a saved run's script is written into. */
  readonly root: ResolvedRoot;
}

/** The handlers, keyed by method name. */
export const dashboardMethods: MethodGroup<DashboardMethodParts> = {
  "events.subscribe": defineMethod(z.strictObject({}), (_params, context) => {
    const notify = context.notify;
    if (!notify) {
      throw new RpcError(
        RpcCode.InvalidRequest,
        "events.subscribe needs a WebSocket connection (/ws): events are pushed as notifications",
      );
    }
    // Resource updates come from each MCP namespace; follow namespaces added or removed.
    const watched = new Map<string, () => void>();
    const watchResources = () => {
      const present = new Set(context.registry.list().map((ns) => ns.name));
      for (const [name, stop] of watched) {
        if (!present.has(name)) {
          stop();
          watched.delete(name);
        }
      }
      for (const ns of context.registry.list()) {
        if (watched.has(ns.name) || !hasUpstreamEvents(ns)) continue;
        const stopResources = ns.onResourceUpdated((uri) =>
          notify("event.resource.updated", { namespace: ns.name, uri })
        );
        const stopLogs = ns.onLogMessage((message) =>
          notify("event.upstream.log", { namespace: ns.name, ...message })
        );
        watched.set(ns.name, () => {
          stopResources();
          stopLogs();
        });
      }
    };
    watchResources();
    const stops = [
      context.runs.onRun((event) => notify(`event.run.${event.event}`, event)),
      context.approvals.onRequest((pending) => notify("event.approval.pending", pending)),
      context.approvals.onAnswer((answer) => notify("event.approval.answered", answer)),
      context.registry.onChange(() => {
        watchResources();
        notify("event.namespaces", { namespaces: context.catalogue.namespaceList() });
      }),
    ];
    context.signal.addEventListener("abort", () => {
      stops.forEach((stop) => stop());
      watched.forEach((stop) => stop());
    }, { once: true });
    return Promise.resolve({ subscribed: true });
  }),
  "approval.answered": defineMethod(
    z.strictObject({ limit: z.number().int().positive().max(200).default(50) }),
    async (params, context) => {
      const map = context.registry.toolMap();
      const answered = await context.history.answeredApprovals(params.limit);
      return {
        answered: answered.map((call) => {
          const typed = typedToolName(map, call.namespace, call.tool);
          return typed === undefined ? call : { ...call, typedName: typed };
        }),
      };
    },
  ),
  check: defineMethod(z.strictObject({ source: z.string() }), async (params, context) => ({
    diagnostics: await context.checker.checkSource(params.source),
  })),
  "namespace.restart": defineMethod(
    z.strictObject({ namespace: z.string().min(1) }),
    async (params, context) => {
      const ns = context.registry.get(params.namespace);
      if (!ns) {
        throw new RpcError(
          RpcCode.InvalidParams,
          `Unknown namespace "${params.namespace}" (known: ${
            context.registry.list().map((n) => n.name).join(", ") || "none"
          })`,
        );
      }
      await ns.stop();
      await ns.start();
      const status = ns.status();
      return {
        namespace: ns.name,
        status: status.state,
        ...(status.state === "failed" ? { reason: status.reason } : {}),
      };
    },
  ),
  "history.search": defineMethod(
    z.strictObject({
      status: z.enum(["ok", "failed"]).optional(),
      kind: z.string().optional(),
      text: z.string().optional(),
      since: z.number().optional().describe("ms since the epoch"),
      until: z.number().optional().describe("ms since the epoch"),
      limit: z.number().int().positive().max(200).default(20),
      offset: z.number().int().nonnegative().default(0),
    }),
    async (params, context) => {
      const text = params.text?.toLowerCase();
      // History is pruned to a bounded size, so filtering the kept rows stays cheap.
      const all = (await context.history.list({ limit: 100_000 })).filter((run) =>
        (!params.status || run.status === params.status) &&
        (!params.kind || run.errorKind === params.kind) &&
        (!params.since || run.startedAt >= params.since) &&
        (!params.until || run.startedAt <= params.until) &&
        (!text || `${run.runId} ${run.preview} ${run.name ?? ""} ${run.client}`.toLowerCase()
          .includes(text))
      );
      return {
        runs: all.slice(params.offset, params.offset + params.limit),
        total: all.length,
        offset: params.offset,
      };
    },
  ),
  "history.save": defineMethod(
    z.strictObject({ id: z.string().min(1), name: z.string().min(1) }),
    async (params, context) => {
      const run = await context.history.get(params.id);
      if (!run) {
        throw new RpcError(RpcCode.InvalidParams, `No run "${params.id}" in history`);
      }
      const file = await saveRunAsScript({
        root: context.root,
        run,
        name: params.name,
      });
      return { saved: true, file, name: params.name };
    },
  ),
};
