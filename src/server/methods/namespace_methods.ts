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
import { defineMethod, type MethodGroup } from "../router.ts";
import type { LiveCatalogue } from "../catalogue_views.ts";
import type { NamespaceRegistry } from "../../namespaces/namespace_registry.ts";
import type { ToolDispatcher } from "../tool_dispatcher.ts";

/**
 * What is wrong with the configuration in force: the gateway core knows, since it loads and
 * reloads it, and implements this.
 */
export interface ConfigStatus {
  /** Warnings from loading it, name clashes, policy rules that match nothing. */
  configWarnings(): string[];
  /** Why the last reload failed (the last good config stays in force), or null. */
  readonly reloadError: string | null;
}

/** What the namespace methods work on. */
export interface NamespaceMethodParts {
  /** The namespaces. */
  readonly registry: Pick<NamespaceRegistry, "get" | "settled" | "warnings">;
  /** Their status and types as discovery sees them. */
  readonly catalogue: Pick<LiveCatalogue, "snapshot" | "namespaceList">;
  /** What is wrong with the configuration in force. */
  readonly configStatus: ConfigStatus;
  /** The one way a tool is called (through the policy gate). */
  readonly dispatcher: Pick<ToolDispatcher, "callTool">;
}

/**
 * TypeScript for some namespaces (by name or identifier) or tools (`ns.tool`), or all of them:
 * always the whole globals text, so it type-checks on its own.
 */
export function typesText(
  catalogue: Pick<LiveCatalogue, "snapshot">,
  namespaces?: readonly string[],
): string {
  const snapshot = catalogue.snapshot();
  const key = namespaces?.join("\0") ?? "";
  let rendered = renderedTypes.get(snapshot);
  const known = rendered?.get(key);
  if (known !== undefined) return known;
  let text: string;
  try {
    text = key === "" ? renderScriptGlobals(snapshot) : standaloneTypes(snapshot, namespaces!);
  } catch (error) {
    if (!(error instanceof UnknownTypesNameError)) throw error;
    throw new RpcError(RpcCode.InvalidParams, error.message);
  }
  if (rendered === undefined || rendered.size >= MAX_RENDERED_PER_SNAPSHOT) {
    rendered = new Map();
    renderedTypes.set(snapshot, rendered);
  }
  rendered.set(key, text);
  return text;
}

/**
 * Types already rendered, per catalogue snapshot and by what was asked: rendering a large
 * namespace again on every request costs more than the request; a catalogue change makes a
 * new snapshot, so nothing stale is served, and the old one's texts go with it.
 */
const renderedTypes = new WeakMap<object, Map<string, string>>();

/** How many different selections are kept per snapshot (a client may ask for many). */
const MAX_RENDERED_PER_SNAPSHOT = 32;

/** How long `namespaces` with `settle` waits for namespaces still in their first start. */
const SETTLE_WAIT_MS = 15_000;

/** The handlers, keyed by method name. */
export const namespaceMethods: MethodGroup<NamespaceMethodParts> = {
  namespaces: defineMethod(namespacesParams, async (params, context) => {
    if (params.settle) await context.registry.settled(SETTLE_WAIT_MS);
    return {
      namespaces: context.catalogue.namespaceList(),
      warnings: context.configStatus.configWarnings(),
      upstreamWarnings: context.registry.warnings(),
      ...(context.configStatus.reloadError !== null
        ? { configError: context.configStatus.reloadError }
        : {}),
    };
  }),
  types: defineMethod(
    typesParams,
    (params, context) =>
      Promise.resolve({ types: typesText(context.catalogue, params.namespaces) }),
  ),
  "namespace.reconnect": defineMethod(reconnectParams, async (params, context) => {
    const namespace = context.registry.get(params.namespace);
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
    const value = await context.dispatcher.callTool(params.namespace, params.tool, params.args, {
      raw: false,
      signal: context.signal,
    });
    return { value };
  }),
};
