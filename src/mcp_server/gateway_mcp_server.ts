/**
 * The gateway as an MCP server: one SDK `Server` instance per session, serving one surface —
 * code mode (default), the proxy of every upstream tool (`expose: "tools"`), or one namespace
 * as itself — with its method groups (tools, resources, prompts and completions, tasks) and the
 * per-session state in an {@linkcode McpSession}. The same instance shape serves both protocol
 * eras: a 2025-era client (`initialize`, sessions, logging, elicitation during a call) and a
 * 2026-07-28 one (`server/discover` with cache hints, input-required results, tasks, change
 * notifications on `subscriptions/listen`); the serving entries (mcp_http_handler.ts,
 * mcp_stdio.ts) pick the era and connect the instance.
 * @module
 */

import {
  createRequestStateCodec,
  type RequestStateCodec,
  Server,
  type ServerCapabilities,
} from "@modelcontextprotocol/server";
import type { GatewayCall, GatewayEvents } from "./gateway_call.ts";
import type { HeldRunState } from "./held_calls.ts";
import { followGatewayEvents, sessionTarget } from "./mcp_events.ts";
import { McpSession, type ProtocolEra } from "./mcp_session.ts";
import { isLogLevel } from "../protocol/mcp_log_levels.ts";
import type { McpServerParts } from "./mcp_server_parts.ts";
import type { McpSurface } from "./mcp_surface.ts";
import type { CodeSurface } from "./code_surface.ts";
import { registerToolMethods } from "./tool_methods.ts";
import { registerResourceMethods } from "./resource_methods.ts";
import { registerPromptMethods } from "./prompt_methods.ts";
import { registerTaskMethods, TASKS_EXTENSION } from "./task_methods.ts";

export { type GatewayCall, type GatewayEvents } from "./gateway_call.ts";
export { runToToolResult } from "./run_tool_result.ts";

/**
 * How long a 2026-07-28 client may cache what does not change while the gateway runs (its
 * `server/discover` answer, the code-mode tool list): the lists of upstream content change as
 * namespaces come and go, and are not cached.
 */
const STABLE_TTL_MS = 5 * 60 * 1000;

/** A held run's signed state, verified on every retry (see held_calls.ts). */
export type HeldStateCodec = RequestStateCodec<HeldRunState>;

/**
 * Builds the codec that signs the state of a run waiting for a 2026-07-28 client. The key
 * must be the same on every instance that may receive the retry: derive it from the gateway's
 * token, which instances behind one proxy share.
 */
export async function heldStateCodec(secret: string): Promise<HeldStateCodec> {
  const key = new Uint8Array(
    await crypto.subtle.digest(
      "SHA-256",
      new TextEncoder().encode(`gateway mcp requestState\0${secret}`),
    ),
  );
  return createRequestStateCodec<HeldRunState>({ key, ttlSeconds: 60 * 60 });
}

/** What builds a server instance; the same for every session of an endpoint. */
export interface GatewayMcpServerOptions {
  call: GatewayCall;
  version: string;
  surface: McpSurface;
  /** Signs held-run state (code mode only). */
  codec?: HeldStateCodec;
  /** Pushed gateway events, for a session that lives on (2025 sessions, stdio). */
  events?: GatewayEvents;
  /** Told when the host could not be asked about a held call. */
  onError?: (message: string) => void;
}

function capabilitiesFor(
  surface: McpSurface,
  era: ProtocolEra,
  withEvents: boolean,
): ServerCapabilities {
  const tasks = era === "modern" && isCodeSurface(surface);
  return {
    tools: { listChanged: surface.toolsChange && withEvents },
    resources: { subscribe: surface.subscribable, listChanged: withEvents },
    prompts: { listChanged: withEvents },
    completions: {},
    // Logging is deprecated from 2026-07-28: run output reaches a modern client as progress.
    ...(era === "legacy" ? { logging: {} } : {}),
    ...(tasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {}),
  };
}

function isCodeSurface(surface: McpSurface): surface is CodeSurface {
  return "tools" in surface;
}

/**
 * Builds the server instance for one session in `era`. `listChanged` says whether list changes
 * are announced to its client. With `options.events` the instance follows the gateway's events
 * itself (a 2025 session, a stdio connection; closing the server unsubscribes); a 2026-07-28
 * HTTP request gets them through the endpoint's listen streams instead.
 */
export function createGatewayMcpServer(
  options: GatewayMcpServerOptions,
  era: ProtocolEra,
  listChanged: boolean,
): { server: Server; session: McpSession } {
  const { surface } = options;
  const server = new Server({ name: "gateway", version: options.version }, {
    capabilities: capabilitiesFor(surface, era, listChanged),
    instructions: surface.instructions,
    cacheHints: {
      "server/discover": { ttlMs: STABLE_TTL_MS, cacheScope: "private" },
      ...(surface.toolsChange
        ? {}
        : { "tools/list": { ttlMs: STABLE_TTL_MS, cacheScope: "private" } }),
    },
    // Code mode's questions carry its own signed state; a surface that passes an upstream's
    // questions on leaves their state to the upstream, which made and verifies it.
    ...(options.codec && !surface.passesInput
      ? { requestState: { verify: options.codec.verify } }
      : {}),
  });
  const session = new McpSession(server, era);
  const parts: McpServerParts = {
    session,
    surface,
    call: options.call,
    onError: options.onError ?? (() => undefined),
  };
  if (era === "modern" && isCodeSurface(surface)) {
    parts.tasks = registerTaskMethods(parts, surface);
  }
  registerToolMethods(parts);
  registerResourceMethods(parts);
  registerPromptMethods(parts);
  if (era === "legacy") {
    // The session's own level filters run output and relayed upstream logs.
    server.setRequestHandler("logging/setLevel", (request) => {
      if (isLogLevel(request.params.level)) session.setLogLevel(request.params.level);
      return {};
    });
  }
  if (options.events) {
    const events = options.events;
    let unsubscribe: (() => void) | undefined;
    const follow =
      () => (unsubscribe ??= followGatewayEvents(events, surface, sessionTarget(session), session));
    if (era === "legacy") server.oninitialized = follow;
    else follow();
    server.onclose = () => unsubscribe?.();
  }
  return { server, session };
}
