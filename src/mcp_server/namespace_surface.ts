/**
 * One namespace served as itself (`gateway mcp --expose NS`, `/mcp?expose=NS`): its tools,
 * resources, prompts and completions under their own names — no prefix — for a host that wants
 * a governed proxy of one server. Every call goes through the gateway's `upstream.*` methods, so
 * policy, approvals, limits and history apply as for `--expose tools`; the upstream's questions
 * (input-required answers) go to the host as it asked them, and its log messages are relayed.
 * @module
 */

import {
  type InputRequiredResult,
  ProtocolError,
  ProtocolErrorCode,
  UriTemplate,
} from "@modelcontextprotocol/server";
import { type HostRoundParams, inputRequiredOf } from "./host_round.ts";
import type { UpstreamTool } from "../protocol/wire_views.ts";
import type { GatewayCall } from "./gateway_call.ts";
import {
  type ListedResource,
  type ListedTemplate,
  type ReadContent,
  UnknownResourceError,
} from "./mcp_resources.ts";
import { type ListedPrompt, UnknownPromptError } from "./mcp_prompts.ts";
import type { Completion, McpSurface } from "./mcp_surface.ts";
import { callProxyTool, type ProxyTool } from "./proxy_tools.ts";

interface UpstreamListing {
  resources: Array<ListedResource & { namespace: string }>;
  templates: Array<ListedTemplate & { namespace: string }>;
}

/** The words `namespace` is introduced to a host with. */
function instructionsFor(namespace: string): string {
  return `The tools, resources and prompts of namespace "${namespace}", served through the gateway: calls go through its policy, limits and history.`;
}

/** Builds the surface serving `namespace` (its name or identifier) over `call`. */
export function namespaceSurface(call: GatewayCall, namespace: string): McpSurface {
  const ours = (t: { namespace: string; identifier?: string }) =>
    t.namespace === namespace || t.identifier === namespace;
  let listed: ProxyTool[] = [];
  const refresh = async () => {
    const answer = await call("upstream.tools", {}) as { tools: UpstreamTool[] };
    listed = answer.tools.filter(ours).map((t) => ({ ...t, exposedName: t.name }));
    return listed;
  };
  const upstream = async () =>
    (await call("upstream.resources", {})) as UpstreamListing & { warnings: string[] };
  const request = async (
    method: string,
    params: Record<string, unknown>,
    host?: HostRoundParams,
  ) =>
    ((await call("upstream.request", {
      namespace,
      method,
      params,
      ...(host === undefined ? {} : { host }),
    })) as { value: unknown }).value;
  return {
    instructions: instructionsFor(namespace),
    toolsChange: true,
    subscribable: true,
    passesInput: true,
    async listTools() {
      return (await refresh()).map((t) => ({
        name: t.name,
        description: t.description,
        inputSchema: t.inputSchema,
        ...(t.outputSchema ? { outputSchema: t.outputSchema } : {}),
        ...(t.annotations ? { annotations: t.annotations } : {}),
      }));
    },
    async call(name, args, turn) {
      const target = listed.find((t) => t.name === name) ??
        (await refresh()).find((t) => t.name === name);
      if (!target) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Unknown tool "${name}" (namespace ${namespace} has: ${
            listed.map((t) => t.name).join(", ") || "no tools now"
          })`,
        );
      }
      return await callProxyTool(call, target, args, turn);
    },
    async listResources() {
      return (await upstream()).resources.filter((r) => r.namespace === namespace)
        .map(({ namespace: _ns, ...r }) => r);
    },
    async listTemplates() {
      return (await upstream()).templates.filter((t) => t.namespace === namespace)
        .map(({ namespace: _ns, ...t }) => t);
    },
    async readResource(uri, host): Promise<ReadContent[] | InputRequiredResult> {
      const { resources, templates } = await upstream();
      const known = resources.some((r) => r.namespace === namespace && r.uri === uri) ||
        templates.some((t) =>
          t.namespace === namespace && new UriTemplate(t.uriTemplate).match(uri) !== null
        );
      if (!known) {
        throw new UnknownResourceError(
          uri,
          `namespace ${namespace} lists no such resource or template (resources/list shows them)`,
        );
      }
      const answer = await call("upstream.read", {
        namespace,
        uri,
        ...(host === undefined ? {} : { host }),
      }) as { contents: ReadContent[] };
      return inputRequiredOf(answer) ?? answer.contents;
    },
    async subscribe(uri, on) {
      await request(on ? "resources/subscribe" : "resources/unsubscribe", { uri });
    },
    async listPrompts() {
      return await request("prompts/list", {}) as ListedPrompt[];
    },
    async getPrompt(name, args, host) {
      const prompts = await request("prompts/list", {}) as ListedPrompt[];
      if (!prompts.some((p) => p.name === name)) {
        throw new UnknownPromptError(name, prompts.map((p) => p.name));
      }
      const answer = await request("prompts/get", { name, arguments: args }, host);
      return inputRequiredOf(answer) ?? answer as Record<string, unknown>;
    },
    async complete(ref, argument, context): Promise<Completion> {
      const answer = await request("completion/complete", {
        ref,
        argument,
        ...(Object.keys(context).length ? { context: { arguments: context } } : {}),
      }) as { completion: Completion };
      return answer.completion;
    },
    clientUri: (ns, uri) => (ns === namespace ? uri : null),
    relaysLogsOf: (ns) => ns === namespace,
  };
}
