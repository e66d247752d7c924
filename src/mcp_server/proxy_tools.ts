/**
 * The proxy exposure (`gateway mcp --expose tools`, `/mcp?expose=tools`): every upstream tool
 * listed directly as `<namespace>__<tool>`, for hosts that cannot write code. Calls go through
 * the gateway's `upstream.call`, so policy, approvals and per-call limits apply as in scripts,
 * and the upstream's own content blocks come back unchanged (then adapted per revision); its
 * questions go to the host.
 * @module
 */

import type { UpstreamTool } from "../protocol/wire_views.ts";
import type { InputRequiredResult } from "@modelcontextprotocol/server";
import type { ContentBlock, ToolResultShape } from "./content_for_revision.ts";
import type { GatewayCall } from "./gateway_call.ts";
import type { CallTurn } from "./call_turn.ts";
import { inputRequiredOf } from "./host_round.ts";

/** A listed proxy tool with where it goes. */
export interface ProxyTool extends UpstreamTool {
  exposedName: string;
}

/** MCP tool names: letters, digits, `_`, `-`, `.`; at most 128 characters (SEP-986). */
function safeName(text: string): string {
  return text.replace(/[^A-Za-z0-9_.-]/g, "_");
}

/** Names every upstream tool `<namespace>__<tool>`, suffixing `_2`, `_3` … on a collision. */
export function nameProxyTools(listing: UpstreamTool[]): ProxyTool[] {
  const used = new Set<string>();
  return listing.map((tool) => {
    const base = `${safeName(tool.identifier)}__${safeName(tool.name)}`.slice(0, 120);
    let exposedName = base;
    for (let n = 2; used.has(exposedName); n++) exposedName = `${base}_${n}`;
    used.add(exposedName);
    return { ...tool, exposedName };
  });
}

/** Lists the upstream tools now. */
export async function listProxyTools(call: GatewayCall): Promise<ProxyTool[]> {
  const answer = await call("upstream.tools", {}) as { tools: UpstreamTool[] };
  return nameProxyTools(answer.tools);
}

/**
 * Calls one upstream tool for the host of `turn` and answers its envelope as a tool result. The
 * host answers the upstream's questions itself: its capabilities, answers and state go with
 * the call, and an input-required answer comes back as the upstream sent it.
 */
export async function callProxyTool(
  call: GatewayCall,
  tool: ProxyTool,
  args: Record<string, unknown>,
  turn: CallTurn,
): Promise<ToolResultShape | InputRequiredResult> {
  const raw = await call("upstream.call", {
    namespace: tool.namespace,
    tool: tool.name,
    args,
    host: turn.host(),
  }, turn) as {
    content?: ContentBlock[];
    structuredContent?: unknown;
    isError?: boolean;
    _meta?: Record<string, unknown>;
  };
  const asked = inputRequiredOf(raw);
  if (asked !== null) return asked;
  return {
    content: Array.isArray(raw.content) ? raw.content : [],
    // MCP's structuredContent is an object; a local tool's plain value is in its text block.
    ...(isRecord(raw.structuredContent) ? { structuredContent: raw.structuredContent } : {}),
    ...(raw.isError ? { isError: true } : {}),
    ...(raw._meta !== undefined ? { _meta: raw._meta } : {}),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
