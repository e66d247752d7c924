/**
 * RPC handlers over run history: `history.list`, `history.get`.
 * @module
 */

import { historyGetParams, historyListParams } from "../../protocol/rpc_params.ts";
import { RpcCode, RpcError } from "../../protocol/json_rpc.ts";
import { typedToolName } from "../../protocol/typed_tool_name.ts";
import { defineMethod, type MethodGroup } from "../router.ts";
import type { HistoryStore } from "../../store/gateway_store.ts";
import type { NamespaceRegistry } from "../../namespaces/namespace_registry.ts";

/** What the history methods work on. */
export interface HistoryMethodParts {
  /** The stored runs. */
  readonly history: Pick<HistoryStore, "list" | "get">;
  /** The tools served now, whose typed names a stored call is shown with. */
  readonly registry: Pick<NamespaceRegistry, "toolMap">;
}

/** The handlers, keyed by method name. */
export const historyMethods: MethodGroup<HistoryMethodParts> = {
  "history.list": defineMethod(historyListParams, async (params, context) => ({
    runs: await context.history.list({
      limit: params.limit ?? 20,
      ...(params.offset !== undefined ? { offset: params.offset } : {}),
      ...(params.failed !== undefined ? { failed: params.failed } : {}),
    }),
  })),
  "history.get": defineMethod(historyGetParams, async (params, context) => {
    const run = await context.history.get(params.id);
    if (!run) {
      throw new RpcError(
        RpcCode.InvalidParams,
        `No run "${params.id}" in history (gateway history lists runs)`,
      );
    }
    // Calls are stored under the upstream's names; each also carries the path a script types
    // (`typedName`, e.g. `everything.get_sum` for `get-sum`) while the tool is still served.
    const map = context.registry.toolMap();
    return {
      ...run,
      toolCalls: run.toolCalls.map((call) => {
        const typed = typedToolName(map, call.namespace, call.tool);
        return typed === undefined ? call : { ...call, typedName: typed };
      }),
    };
  }),
};
