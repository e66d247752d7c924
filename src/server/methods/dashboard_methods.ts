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
import { defineMethod, type MethodDefinition } from "../router.ts";
import { hasUpstreamEvents } from "../../namespaces/namespace.ts";
import { typedToolName } from "../../protocol/typed_tool_name.ts";
import { saveRunAsScript } from "../saved_script.ts";

/** The handlers, keyed by method name. */
export const dashboardMethods: Record<string, MethodDefinition> = {
  "events.subscribe": defineMethod(z.strictObject({}), (_params, context) => {
    const notify = context.notify;
    if (!notify) {
      throw new RpcError(
        RpcCode.InvalidRequest,
        "events.subscribe needs a WebSocket connection (/ws): events are pushed as notifications",
      );
    }
    const { core } = context;
    // Resource updates come from each MCP namespace; follow namespaces added or removed.
    const watched = new Map<string, () => void>();
    const watchResources = () => {
      const present = new Set(core.registry.list().map((ns) => ns.name));
      for (const [name, stop] of watched) {
        if (!present.has(name)) {
          stop();
          watched.delete(name);
        }
      }
      for (const ns of core.registry.list()) {
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
      core.onRun((event) => notify(`event.run.${event.event}`, event)),
      core.approvals.onRequest((pending) => notify("event.approval.pending", pending)),
      core.approvals.onAnswer((answer) => notify("event.approval.answered", answer)),
      core.registry.onChange(() => {
        watchResources();
        notify("event.namespaces", { namespaces: core.namespaceList() });
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
      const map = context.core.registry.toolMap();
      const answered = await context.core.history.answeredApprovals(params.limit);
      return {
        answered: answered.map((call) => {
          const typed = typedToolName(map, call.namespace, call.tool);
          return typed === undefined ? call : { ...call, typedName: typed };
        }),
      };
    },
  ),
  check: defineMethod(z.strictObject({ source: z.string() }), async (params, context) => ({
    diagnostics: await context.core.checkSource(params.source),
  })),
  "namespace.restart": defineMethod(
    z.strictObject({ namespace: z.string().min(1) }),
    async (params, context) => {
      const ns = context.core.registry.get(params.namespace);
      if (!ns) {
        throw new RpcError(
          RpcCode.InvalidParams,
          `Unknown namespace "${params.namespace}" (known: ${
            context.core.registry.list().map((n) => n.name).join(", ") || "none"
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
      const all = (await context.core.history.list({ limit: 100_000 })).filter((run) =>
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
      const run = await context.core.history.get(params.id);
      if (!run) {
        throw new RpcError(RpcCode.InvalidParams, `No run "${params.id}" in history`);
      }
      const file = await saveRunAsScript({
        root: context.core.paths.root,
        run,
        name: params.name,
      });
      return { saved: true, file, name: params.name };
    },
  ),
};
