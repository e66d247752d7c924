/**
 * What a host tells an upstream through the gateway when the gateway serves upstream content
 * as itself (`--expose NS`, `--expose tools`): its client capabilities, its answers and the
 * opaque state of the previous input-required round, and the log level it wants, read from the
 * request as the host's era carries them (a 2026-07-28 request's `_meta` envelope, a 2025
 * session's `initialize` and `logging/setLevel`); and the upstream's input-required answer
 * turned back into the result the host gets.
 * @module
 */

import {
  CLIENT_CAPABILITIES_META_KEY,
  type InputRequiredResult,
  LOG_LEVEL_META_KEY,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { McpSession } from "./mcp_session.ts";
import { isLogLevel, type LogLevel } from "../protocol/mcp_log_levels.ts";

/** The `host` parameter of `upstream.call`, `upstream.read` and `upstream.request`. */
export interface HostRoundParams {
  capabilities: Record<string, unknown>;
  inputResponses?: Record<string, unknown>;
  requestState?: string;
  logLevel?: LogLevel;
}

/** The client capabilities a 2026-07-28 request declared in its `_meta` envelope. */
export function declaredCapabilities(ctx: ServerContext): Record<string, unknown> {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const declared = envelope?.[CLIENT_CAPABILITIES_META_KEY];
  return typeof declared === "object" && declared !== null
    ? declared as Record<string, unknown>
    : {};
}

/** The log level a request asks for: its envelope's (2026-07-28), its session's (2025). */
export function requestLogLevel(session: McpSession, ctx: ServerContext): LogLevel | undefined {
  if (session.era === "legacy") return session.logLevel ?? undefined;
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const level = envelope?.[LOG_LEVEL_META_KEY];
  return isLogLevel(level) ? level : undefined;
}

/**
 * The host round of request `ctx` on `session`. The state is the raw string the host echoed
 * (these exposures do not verify it: it is the upstream's, which verifies it).
 */
export function hostRoundOf(session: McpSession, ctx: ServerContext): HostRoundParams {
  const capabilities = session.era === "modern"
    ? declaredCapabilities(ctx)
    : (session.server.getClientCapabilities() ?? {}) as Record<string, unknown>;
  const responses = ctx.mcpReq.inputResponses as Record<string, unknown> | undefined;
  const state: unknown = ctx.mcpReq.requestState();
  const level = requestLogLevel(session, ctx);
  return {
    capabilities,
    ...(responses === undefined ? {} : { inputResponses: responses }),
    ...(typeof state === "string" ? { requestState: state } : {}),
    ...(level === undefined ? {} : { logLevel: level }),
  };
}

/**
 * The upstream's input-required answer in a raw result (`resultType: "input_required"`) as the
 * result the host gets, its requests and state as the upstream sent them; null for any other.
 */
export function inputRequiredOf(raw: unknown): InputRequiredResult | null {
  if (typeof raw !== "object" || raw === null) return null;
  const { resultType, inputRequests, requestState } = raw as Record<string, unknown>;
  if (resultType !== "input_required") return null;
  return {
    resultType: "input_required",
    ...(typeof inputRequests === "object" && inputRequests !== null
      ? { inputRequests: inputRequests as InputRequiredResult["inputRequests"] }
      : {}),
    ...(typeof requestState === "string" ? { requestState } : {}),
  } as InputRequiredResult;
}
