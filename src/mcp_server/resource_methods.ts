/**
 * The resource methods of the gateway's MCP server: listing, templates and reading from the
 * surface, and (2025 era) subscriptions, whose upstream changes reach the client as
 * `notifications/resources/updated` (mcp_events.ts). A 2026-07-28 client asks for changes on a
 * `subscriptions/listen` stream instead, which the SDK's serving entries answer.
 * @module
 */

import type { ReadResourceResult } from "@modelcontextprotocol/server";
import { answering } from "./mcp_errors.ts";
import type { McpServerParts } from "./mcp_server_parts.ts";
import { hostRoundOf } from "./host_round.ts";

/** Registers the resource methods on the session's server. */
export function registerResourceMethods(parts: McpServerParts): void {
  const { session, surface } = parts;
  const server = session.server;
  server.setRequestHandler(
    "resources/list",
    () => answering(async () => ({ resources: await surface.listResources() })),
  );
  server.setRequestHandler(
    "resources/templates/list",
    () => answering(async () => ({ resourceTemplates: await surface.listTemplates() })),
  );
  server.setRequestHandler(
    "resources/read",
    (request, ctx) =>
      answering(async () => {
        const read = await surface.readResource(
          request.params.uri,
          surface.passesInput ? hostRoundOf(session, ctx) : undefined,
        );
        // An upstream's question goes to the host as the upstream asked it.
        if (!Array.isArray(read)) return read as unknown as ReadResourceResult;
        // Each content carries `text` or `blob`, as its server (or the gateway) made it.
        return { contents: read as ReadResourceResult["contents"] };
      }),
  );
  if (session.era !== "legacy") return;
  server.setRequestHandler("resources/subscribe", (request) =>
    answering(async () => {
      await surface.subscribe(request.params.uri, true);
      session.subscriptions.add(request.params.uri);
      return {};
    }));
  server.setRequestHandler("resources/unsubscribe", (request) =>
    answering(async () => {
      await surface.subscribe(request.params.uri, false);
      session.subscriptions.delete(request.params.uri);
      return {};
    }));
}
