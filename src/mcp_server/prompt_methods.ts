/**
 * The prompt and completion methods of the gateway's MCP server, answered from the surface:
 * `prompts/list`, `prompts/get`, `completion/complete`.
 * @module
 */

import type { CompleteResult, GetPromptResult } from "@modelcontextprotocol/server";
import { answering } from "./mcp_errors.ts";
import type { CompletionRef } from "./mcp_prompts.ts";
import type { McpServerParts } from "./mcp_server_parts.ts";
import { hostRoundOf } from "./host_round.ts";

/** Registers the prompt and completion methods on the session's server. */
export function registerPromptMethods(parts: McpServerParts): void {
  const { session, surface } = parts;
  const server = session.server;
  server.setRequestHandler(
    "prompts/list",
    () => answering(async () => ({ prompts: await surface.listPrompts() })),
  );
  server.setRequestHandler(
    "prompts/get",
    (request, ctx) =>
      answering(async () =>
        // A prompt as its upstream (or the gateway) built it, or the upstream's question.
        await surface.getPrompt(
          request.params.name,
          request.params.arguments ?? {},
          surface.passesInput ? hostRoundOf(session, ctx) : undefined,
        ) as GetPromptResult
      ),
  );
  server.setRequestHandler("completion/complete", (request) =>
    answering(async () => ({
      completion: await surface.complete(
        request.params.ref as CompletionRef,
        request.params.argument,
        request.params.context?.arguments ?? {},
      ) as CompleteResult["completion"],
    })));
}
