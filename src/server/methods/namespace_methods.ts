/**
 * RPC handlers about namespaces: `namespaces` (status), `types` (TypeScript), `call` (one tool,
 * directly), `namespace.reconnect` (after `gateway auth login`). No method can
 * add or change an upstream command or module path.
 * @module
 */

import {
  callParams,
  namespacesParams,
  reconnectParams,
  typesParams,
} from "../../protocol/rpc_params.ts";
import { RpcCode, RpcError } from "../../protocol/json_rpc.ts";
import { renderScriptGlobals } from "../../namespaces/render_types.ts";
import { standaloneTypes, UnknownTypesNameError } from "../../discovery/standalone_types.ts";
import { defineMethod, type MethodDefinition } from "../router.ts";
import type { GatewayCore } from "../gateway_core.ts";

/**
 * TypeScript for some namespaces (by name or identifier) or tools (`ns.tool`), or all of them:
 * always the whole globals text, so it type-checks on its own.
 */
export function typesText(core: GatewayCore, namespaces?: readonly string[]): string {
  const snapshot = core.snapshot();
  if (!namespaces || namespaces.length === 0) return renderScriptGlobals(snapshot);
  try {
    return standaloneTypes(snapshot, namespaces);
  } catch (error) {
    if (!(error instanceof UnknownTypesNameError)) throw error;
    throw new RpcError(RpcCode.InvalidParams, error.message);
  }
}

/** How long `namespaces` with `settle` waits for namespaces still in their first start. */
const SETTLE_WAIT_MS = 15_000;

/** The handlers, keyed by method name. */
export const namespaceMethods: Record<string, MethodDefinition> = {
  namespaces: defineMethod(namespacesParams, async (params, context) => {
    if (params.settle) await context.core.registry.settled(SETTLE_WAIT_MS);
    return {
      namespaces: context.core.namespaceList(),
      warnings: context.core.configWarnings(),
      upstreamWarnings: context.core.registry.warnings(),
      ...(context.core.reloadError !== null ? { configError: context.core.reloadError } : {}),
    };
  }),
  types: defineMethod(
    typesParams,
    (params, context) => Promise.resolve({ types: typesText(context.core, params.namespaces) }),
  ),
  "namespace.reconnect": defineMethod(reconnectParams, async (params, context) => {
    const namespace = context.core.registry.get(params.namespace);
    if (namespace === undefined || namespace.kind !== "mcp") {
      throw new RpcError(
        RpcCode.InvalidParams,
        `No MCP server "${params.namespace}" to reconnect (gateway tools lists namespaces)`,
      );
    }
    await namespace.stop();
    await namespace.start();
    return { namespace: params.namespace, status: namespace.status() };
  }),
  call: defineMethod(callParams, async (params, context) => {
    const value = await context.core.callTool(params.namespace, params.tool, params.args, {
      raw: false,
      signal: context.signal,
    });
    return { value };
  }),
};
