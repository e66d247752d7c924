/**
 * The resources, prompts and completions the code-mode and proxy exposures share: the guide,
 * the generated types, run attachments and every upstream's resources under
 * `gateway://ns/NS/…`; every upstream's prompts as `<namespace>__<prompt>` and the workflows as
 * `workflow__<name>` (see mcp_resources.ts and mcp_prompts.ts for each).
 * @module
 */

import type { GatewayCall } from "./gateway_call.ts";
import {
  type ListedResource,
  type ListedTemplate,
  listResources,
  listTemplates,
  namespacedUri,
  readResource,
  splitNamespacedUri,
} from "./mcp_resources.ts";
import {
  complete,
  type CompletionRef,
  getPrompt,
  type ListedPrompt,
  listPrompts,
} from "./mcp_prompts.ts";
import type { Completion, McpSurface } from "./mcp_surface.ts";
import type { HostRoundParams } from "./host_round.ts";

/** The resource and prompt half of a surface over the gateway's own namespaced content. */
export type GatewayContentPart = Pick<
  McpSurface,
  | "subscribable"
  | "passesInput"
  | "listResources"
  | "listTemplates"
  | "readResource"
  | "subscribe"
  | "listPrompts"
  | "getPrompt"
  | "complete"
  | "clientUri"
>;

/**
 * Builds the shared resource and prompt half over `call`. With `passesInput` (the proxy) an
 * upstream's questions on a read or a prompt go to the host; code mode keeps them away.
 */
export function gatewayContent(call: GatewayCall, passesInput: boolean): GatewayContentPart {
  const hostOf = (host: HostRoundParams | undefined) => passesInput ? host : undefined;
  return {
    subscribable: true,
    passesInput,
    listResources: (): Promise<ListedResource[]> => listResources(call),
    listTemplates: (): Promise<ListedTemplate[]> => listTemplates(call),
    readResource: (uri: string, host?: HostRoundParams) => readResource(call, uri, hostOf(host)),
    subscribe: async (uri: string, on: boolean): Promise<void> => {
      const upstream = splitNamespacedUri(uri);
      if (!upstream) return;
      await call("upstream.request", {
        namespace: upstream.namespace,
        method: on ? "resources/subscribe" : "resources/unsubscribe",
        params: { uri: upstream.uri },
      });
    },
    listPrompts: (): Promise<ListedPrompt[]> => listPrompts(call),
    getPrompt: (name: string, args: Record<string, string>, host?: HostRoundParams) =>
      getPrompt(call, name, args, hostOf(host)),
    complete: (
      ref: CompletionRef,
      argument: { name: string; value: string },
      context: Record<string, string>,
    ): Promise<Completion> => complete(call, ref, argument, context),
    clientUri: (namespace: string, uri: string): string => namespacedUri(namespace, uri),
  };
}
