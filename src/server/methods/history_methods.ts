/**
 * RPC handlers over run history: `history.list`, `history.get`.
 * @module
 */

import { historyGetParams, historyListParams } from "../../protocol/rpc_params.ts";
import { RpcCode, RpcError } from "../../protocol/json_rpc.ts";
import { typedToolName } from "../../protocol/typed_tool_name.ts";
import { defineMethod, type MethodDefinition } from "../router.ts";

/** The handlers, keyed by method name. */
export const historyMethods: Record<string, MethodDefinition> = {
  "history.list": defineMethod(historyListParams, async (params, context) => ({
    runs: await context.core.history.list({
      limit: params.limit ?? 20,
      ...(params.offset !== undefined ? { offset: params.offset } : {}),
      ...(params.failed !== undefined ? { failed: params.failed } : {}),
    }),
  })),
  "history.get": defineMethod(historyGetParams, async (params, context) => {
    const run = await context.core.history.get(params.id);
    if (!run) {
      throw new RpcError(
        RpcCode.InvalidParams,
        `No run "${params.id}" in history (gateway history lists runs)`,
      );
    }
    // Calls are stored under the upstream's names; each also carries the path a script types
    // (`typedName`, e.g. `everything.get_sum` for `get-sum`) while the tool is still served.
    const map = context.core.registry.toolMap();
    return {
      ...run,
      toolCalls: run.toolCalls.map((call) => {
        const typed = typedToolName(map, call.namespace, call.tool);
        return typed === undefined ? call : { ...call, typedName: typed };
      }),
    };
  }),
};
