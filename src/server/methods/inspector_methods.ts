/**
 * RPC handlers behind the dashboard's inspector views, what a person debugging an upstream MCP
 * server reaches for: one namespace's resources and templates (`namespace.resources`), its
 * prompts (`namespace.prompts`), and its raw protocol log — the kept messages
 * (`protocol.log`), one message whole (`protocol.message`), live pushes of new ones over the
 * WebSocket (`protocol.watch`/`protocol.unwatch`, notifications `event.protocol`) and
 * `protocol.clear`. Reading a resource and getting a prompt go through `upstream.read` and
 * `upstream.request` as for the gateway's own MCP server.
 * @module
 */

import { z } from "zod";
import { RpcCode, RpcError } from "../../protocol/json_rpc.ts";
import type { ListedNamespace } from "../../namespaces/namespace_registry.ts";
import { hasResources, hasUpstreamRequests } from "../../namespaces/namespace.ts";
import type { ProtocolLog, ProtocolLogs } from "../../namespaces/mcp/protocol_log.ts";
import { defineMethod, type MethodGroup } from "../router.ts";
import { type NamespaceLookup, namespaceNamed } from "./upstream_methods.ts";

/** What the inspector methods work on. */
export interface InspectorMethodParts {
  /** The namespaces, looked up by name or identifier. */
  readonly registry: NamespaceLookup;
  /** Each MCP namespace's raw traffic, secrets masked. */
  readonly protocolLogs: Pick<ProtocolLogs, "get" | "watch" | "unwatch">;
}

/** Most entries one `protocol.log` answer carries. */
const MAX_ENTRIES = 1000;

/** Namespace `name` (or identifier), which must be an MCP server. */
function mcpNamespace(
  context: InspectorMethodParts,
  name: string,
  what: string,
): ListedNamespace {
  const ns = namespaceNamed(context.registry, name);
  if (ns.kind !== "mcp") {
    const mcp = context.registry.list().filter((n) => n.kind === "mcp").map((n) => n.name);
    throw new RpcError(
      RpcCode.InvalidParams,
      `Namespace "${ns.name}" is a ${ns.kind} namespace: only MCP servers have ${what} (MCP ` +
        `namespaces: ${mcp.join(", ") || "none"})`,
    );
  }
  return ns;
}

function protocolLogOf(
  context: InspectorMethodParts,
  name: string,
): { ns: ListedNamespace; log: ProtocolLog } {
  const ns = mcpNamespace(context, name, "a protocol log");
  const log = context.protocolLogs.get(ns.name);
  if (log === undefined) {
    throw new RpcError(
      RpcCode.InvalidParams,
      `Namespace "${ns.name}" keeps no protocol log (it was not started by this gateway)`,
    );
  }
  return { ns, log };
}

/** The handlers, keyed by method name. */
export const inspectorMethods: MethodGroup<InspectorMethodParts> = {
  "namespace.resources": defineMethod(
    z.strictObject({ namespace: z.string().min(1) }),
    async (params, context) => {
      const ns = mcpNamespace(context, params.namespace, "resources");
      if (!hasResources(ns)) {
        throw new RpcError(RpcCode.InvalidParams, `Namespace "${ns.name}" has no resources`);
      }
      return { namespace: ns.name, ...await ns.listResources() };
    },
  ),
  "namespace.prompts": defineMethod(
    z.strictObject({ namespace: z.string().min(1) }),
    async (params, context) => {
      const ns = mcpNamespace(context, params.namespace, "prompts");
      if (!hasUpstreamRequests(ns)) {
        throw new RpcError(RpcCode.InvalidParams, `Namespace "${ns.name}" has no prompts`);
      }
      // A ready server without the prompts capability lists none (and is not asked).
      if (ns.status().state === "ready" && ns.catalogue().prompts === undefined) {
        return { namespace: ns.name, prompts: [], capability: false };
      }
      return {
        namespace: ns.name,
        prompts: await ns.upstreamRequest("prompts/list", {}),
        capability: true,
      };
    },
  ),
  "protocol.log": defineMethod(
    z.strictObject({
      namespace: z.string().min(1),
      after: z.number().int().nonnegative().optional().describe("only messages after this seq"),
      limit: z.number().int().positive().max(MAX_ENTRIES).default(500),
    }),
    (params, context) => {
      const { ns, log } = protocolLogOf(context, params.namespace);
      return Promise.resolve({
        namespace: ns.name,
        entries: log.entries({
          limit: params.limit,
          ...(params.after === undefined ? {} : { after: params.after }),
        }),
      });
    },
  ),
  "protocol.message": defineMethod(
    z.strictObject({ namespace: z.string().min(1), seq: z.number().int().positive() }),
    (params, context) => {
      const { ns, log } = protocolLogOf(context, params.namespace);
      const message = log.message(params.seq);
      if (message === undefined) {
        throw new RpcError(
          RpcCode.InvalidParams,
          `Message ${params.seq} of "${ns.name}" is no longer kept (the log keeps the newest ` +
            `messages, up to 1000 or 4 MiB of text)`,
        );
      }
      return Promise.resolve({ namespace: ns.name, ...message });
    },
  ),
  "protocol.watch": defineMethod(
    z.strictObject({ namespace: z.string().min(1) }),
    (params, context) => {
      const notify = context.notify;
      if (!notify) {
        throw new RpcError(
          RpcCode.InvalidRequest,
          "protocol.watch needs a WebSocket connection (/ws): messages are pushed as notifications",
        );
      }
      const { ns } = protocolLogOf(context, params.namespace);
      const name = ns.name;
      context.protocolLogs.watch(
        context.signal,
        name,
        (entries) => notify("event.protocol", { namespace: name, entries }),
      );
      return Promise.resolve({ namespace: ns.name, watching: true });
    },
  ),
  "protocol.unwatch": defineMethod(
    z.strictObject({ namespace: z.string().min(1) }),
    (params, context) => {
      const ns = namespaceNamed(context.registry, params.namespace);
      context.protocolLogs.unwatch(context.signal, ns.name);
      return Promise.resolve({ namespace: ns.name, watching: false });
    },
  ),
  "protocol.clear": defineMethod(
    z.strictObject({ namespace: z.string().min(1) }),
    (params, context) => {
      const { ns, log } = protocolLogOf(context, params.namespace);
      log.clear();
      return Promise.resolve({ namespace: ns.name, cleared: true });
    },
  ),
};
