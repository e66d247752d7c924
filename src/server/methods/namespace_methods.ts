/**
 * RPC handlers about namespaces: `namespaces` (status), `types` (TypeScript), `call` (one tool,
 * directly), `namespace.reconnect` (after `gateway auth login`). No method can add or change an upstream command or module path (SEC-08).
 * @module
 */

import { callParams, reconnectParams, typesParams } from "../../protocol/rpc_params.ts";
import { RpcCode, RpcError } from "../../protocol/json_rpc.ts";
import { renderNamespaceTypes, renderScriptGlobals } from "../../namespaces/render_types.ts";
import { defineMethod, type MethodDefinition } from "../router.ts";
import type { GatewayCore } from "../gateway_core.ts";

/** TypeScript for some namespaces (by name or identifier), or all of them with the globals. */
export function typesText(core: GatewayCore, namespaces?: readonly string[]): string {
  const snapshot = core.snapshot();
  if (!namespaces || namespaces.length === 0) return renderScriptGlobals(snapshot);
  const out: string[] = [];
  for (const wanted of namespaces) {
    const ns = snapshot.namespaces.find((n) => n.name === wanted || n.identifier === wanted);
    if (!ns) {
      throw new RpcError(
        RpcCode.InvalidParams,
        `Unknown namespace "${wanted}" (known: ${
          snapshot.namespaces.map((n) => n.name).join(", ") || "none"
        })`,
      );
    }
    out.push(renderNamespaceTypes(ns));
  }
  return out.join("\n");
}

/** The handlers, keyed by method name. */
export const namespaceMethods: Record<string, MethodDefinition> = {
  namespaces: defineMethod(typesParams.partial(), (_params, context) =>
    Promise.resolve({
      namespaces: context.core.namespaceList(),
      warnings: context.core.configWarnings(),
      upstreamWarnings: context.core.registry.warnings(),
      ...(context.core.reloadError !== null ? { configError: context.core.reloadError } : {}),
    })),
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
