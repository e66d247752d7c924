/**
 * Gateway events as MCP change notifications. A namespace starting, stopping or reloading makes
 * the tool (for the exposures whose tools come from upstreams), resource and prompt lists stale;
 * an upstream resource's change is an update of the URI the client knows it by; an upstream's
 * log message is relayed by the proxy exposures to a 2025 client that set a level. A 2025
 * client gets them unsolicited on its connection; a 2026-07-28 client only on the
 * `subscriptions/listen` stream it opened (the SDK's serving entries route them there).
 * @module
 */

import type { GatewayEvents } from "./gateway_call.ts";
import type { McpSession } from "./mcp_session.ts";
import { isLogLevel } from "../protocol/mcp_log_levels.ts";
import type { McpSurface } from "./mcp_surface.ts";

/** Where change notifications go: one connection, or every listen stream of an endpoint. */
export interface ChangeTarget {
  toolsChanged(): void;
  resourcesChanged(): void;
  promptsChanged(): void;
  resourceUpdated(uri: string): void;
}

/** A target sending on one session's connection (2025 unsolicited; 2026 over stdio's stream). */
export function sessionTarget(session: McpSession): ChangeTarget {
  const server = session.server;
  const ignore = () => undefined;
  return {
    toolsChanged: () => void server.sendToolListChanged().catch(ignore),
    resourcesChanged: () => void server.sendResourceListChanged().catch(ignore),
    promptsChanged: () => void server.sendPromptListChanged().catch(ignore),
    resourceUpdated: (uri) => {
      // A 2025 client subscribed per resource; a 2026-07-28 stream filters by its own list.
      if (session.era === "modern" || session.subscriptions.has(uri)) {
        server.sendResourceUpdated({ uri }).catch(ignore);
      }
    },
  };
}

/**
 * Follows the gateway's events for `surface`, telling `target`; upstream log messages go to
 * `session` when given (a 2025 connection). Returns the unsubscribe function.
 */
export function followGatewayEvents(
  events: GatewayEvents,
  surface: McpSurface,
  target: ChangeTarget,
  session?: McpSession,
): () => void {
  return events((method, params) => {
    if (method === "event.namespaces") {
      if (surface.toolsChange) target.toolsChanged();
      target.resourcesChanged();
      target.promptsChanged();
    } else if (method === "event.resource.updated") {
      const { namespace, uri } = params as { namespace: string; uri: string };
      const known = surface.clientUri(namespace, uri);
      if (known !== null) target.resourceUpdated(known);
    } else if (method === "event.upstream.log" && session?.era === "legacy") {
      const { namespace, level, logger, data, toCall } = params as {
        namespace: string;
        level: string;
        logger?: string;
        data: unknown;
        toCall?: boolean;
      };
      // A message an exposed call's host was sent with the call is not sent again.
      if (toCall === true) return;
      if (!surface.relaysLogsOf(namespace) || !isLogLevel(level) || !session.logs(level)) return;
      // The proxy stands in for its upstreams: their log messages reach the client, filtered
      // by the level it set and named by namespace.
      session.server.sendLoggingMessage({
        level,
        logger: logger ? `${namespace}/${logger}` : namespace,
        data,
      }).catch(() => undefined);
    }
  });
}
