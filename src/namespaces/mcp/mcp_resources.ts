/**
 * The MCP requests beside tool calls: resources (list, read) for the `resources` script global,
 * and the prompts/completion/subscription requests the gateway's own MCP server forwards.
 * @module
 */

import {
  type HostRound,
  type ResourceContents,
  type ResourceListing,
  ToolCallError,
  type UpstreamMethod,
} from "../namespace.ts";
import { hostEnvelope, upstreamErrorOf } from "./mcp_tool_call.ts";
import type { UpstreamNotifications } from "./upstream_notifications.ts";
import { type Client, ProtocolError, ProtocolErrorCode } from "./mcp_sdk.ts";
import { messageOf } from "../../protocol/message_of.ts";

const UPSTREAM_CAPABILITY: Record<UpstreamMethod, "prompts" | "completions" | "resources"> = {
  "prompts/list": "prompts",
  "prompts/get": "prompts",
  "completion/complete": "completions",
  "resources/read": "resources",
  "resources/subscribe": "resources",
  "resources/unsubscribe": "resources",
};

/**
 * Resources and resource templates of namespace `namespace`; empty when the server has no
 * `resources` capability. Rejects with `ToolError` naming the namespace.
 */
export async function listMcpResources(
  client: Client,
  namespace: string,
): Promise<ResourceListing> {
  if (client.getServerCapabilities()?.resources === undefined) {
    return { resources: [], templates: [] };
  }
  try {
    const { resources } = await client.listResources();
    const templates = await client.listResourceTemplates().then(
      (listed) => listed.resourceTemplates,
      (error) => {
        if (error instanceof ProtocolError && error.code === ProtocolErrorCode.MethodNotFound) {
          return [];
        }
        throw error;
      },
    );
    return {
      resources: resources.map((r) => ({
        uri: r.uri,
        name: r.name,
        ...optionalText("description", r.description),
        ...optionalText("mimeType", r.mimeType),
      })),
      templates: templates.map((t) => ({
        uriTemplate: t.uriTemplate,
        name: t.name,
        ...optionalText("description", t.description),
        ...optionalText("mimeType", t.mimeType),
      })),
    };
  } catch (error) {
    throw new ToolCallError(
      "ToolError",
      `Cannot list resources of "${namespace}": ${messageOf(error)}`,
      { cause: error },
    );
  }
}

/** Reads resource `uri`; `blob` stays base64 as MCP sends it. Rejects with `ToolError`. */
export async function readMcpResource(
  client: Client,
  namespace: string,
  uri: string,
): Promise<ResourceContents> {
  try {
    const result = await client.readResource({ uri });
    return {
      contents: result.contents.map((c) => ({
        uri: c.uri,
        ...optionalText("mimeType", c.mimeType),
        ...("text" in c && typeof c.text === "string" ? { text: c.text } : {}),
        ...("blob" in c && typeof c.blob === "string" ? { blob: c.blob } : {}),
      })),
    };
  } catch (error) {
    throw new ToolCallError(
      "ToolError",
      `Cannot read resource "${uri}" of "${namespace}": ${messageOf(error)}`,
      { cause: error },
    );
  }
}

/**
 * Forwards one prompts/completion/resource request upstream unchanged. Rejects with
 * `ToolError` naming the namespace when the server lacks the capability or refuses (with the
 * server's own error as `upstreamError`). On a 2026-07-28 connection, which has no
 * `resources/subscribe`, a subscription is a resource named in the change stream's filter
 * (`notifications`). With `hostRound` (`prompts/get`, `resources/read` of a namespace served
 * as itself) the request carries the host's answers, state, capabilities and log level, and an
 * input-required answer comes back as it is.
 */
export async function forwardUpstreamRequest(
  client: Client,
  namespace: string,
  request: { method: UpstreamMethod; params: Record<string, unknown>; hostRound?: HostRound },
  notifications: UpstreamNotifications,
): Promise<unknown> {
  const { method, hostRound } = request;
  const params = hostRound === undefined ? request.params : {
    ...request.params,
    ...(hostRound.inputResponses === undefined ? {} : { inputResponses: hostRound.inputResponses }),
    ...(hostRound.requestState === undefined ? {} : { requestState: hostRound.requestState }),
    ...(client.getProtocolEra() === "modern" ? { _meta: hostEnvelope(client, hostRound) } : {}),
  };
  // A host round hands an input-required answer back; the host's own cache serves it.
  const manual = hostRound === undefined
    ? {}
    : { allowInputRequired: true, cacheMode: "bypass" as const };
  const unwatch = hostRound?.onLog === undefined
    ? undefined
    : notifications.watchLogs(hostRound.onLog);
  const capabilities = client.getServerCapabilities() ?? {};
  const needs = UPSTREAM_CAPABILITY[method];
  if (capabilities[needs] === undefined) {
    throw new ToolCallError(
      "ToolError",
      `Namespace "${namespace}" does not offer ${needs} (its server has no "${needs}" capability)`,
    );
  }
  try {
    switch (method) {
      case "prompts/list":
        return (await client.listPrompts()).prompts;
      case "prompts/get":
        return await client.getPrompt(params as Parameters<Client["getPrompt"]>[0], manual);
      case "resources/read":
        return await client.readResource(params as Parameters<Client["readResource"]>[0], manual);
      case "completion/complete":
        return await client.complete(params as Parameters<Client["complete"]>[0]);
      case "resources/subscribe":
      case "resources/unsubscribe": {
        const { uri } = params as Parameters<Client["subscribeResource"]>[0];
        if (client.getProtocolEra() === "modern") {
          notifications.setResourceSubscription(uri, method === "resources/subscribe");
          return {};
        }
        return method === "resources/subscribe"
          ? await client.subscribeResource({ uri })
          : await client.unsubscribeResource({ uri });
      }
    }
  } catch (error) {
    throw new ToolCallError(
      "ToolError",
      `${method} on namespace "${namespace}" failed: ${messageOf(error)}`,
      {
        cause: error,
        ...(error instanceof ProtocolError ? { upstreamError: upstreamErrorOf(error) } : {}),
      },
    );
  } finally {
    if (unwatch !== undefined) setTimeout(unwatch, 0);
  }
}

function optionalText<K extends string>(key: K, value: unknown): { [P in K]?: string } {
  return typeof value === "string" ? { [key]: value } as { [P in K]?: string } : {};
}
