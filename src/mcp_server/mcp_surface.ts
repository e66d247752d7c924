/**
 * What one exposure of the gateway's MCP server serves — its tools, resources, prompts and
 * completions — apart from how MCP carries them. Three exposures implement it: code mode (the
 * code-mode tools over the gateway's own resources and prompts), the proxy (every upstream tool
 * as `<namespace>__<tool>` over the same resources and prompts), and one namespace served as
 * itself (its own tool, resource and prompt names). The method groups (tool_methods.ts,
 * resource_methods.ts, prompt_methods.ts) answer MCP requests from a surface.
 * @module
 */

import type { InputRequiredResult } from "@modelcontextprotocol/server";
import type { ToolResultShape } from "./content_for_revision.ts";
import type { CallTurn } from "./call_turn.ts";
import type { ListedResource, ListedTemplate, ReadContent } from "./mcp_resources.ts";
import type { CompletionRef, ListedPrompt } from "./mcp_prompts.ts";
import type { HostRoundParams } from "./host_round.ts";

/** A tool as `tools/list` answers it. */
export interface ListedTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

/** What a `completion/complete` answers. */
export interface Completion {
  values: string[];
  total?: number;
  hasMore?: boolean;
}

/** One exposure's content, answered from gateway methods. */
export interface McpSurface {
  /** The `instructions` the server introduces itself with. */
  readonly instructions: string;
  /** Whether its tool list changes while a client is connected (upstreams come and go). */
  readonly toolsChange: boolean;
  /** Whether its resources can be subscribed to (2025 era). */
  readonly subscribable: boolean;
  /**
   * Whether the questions of the upstreams it serves go to the client as the upstreams ask
   * them (their input-required answers, whose `requestState` is the upstream's to verify), as
   * when it serves upstream tools directly; code mode asks its own (signed) questions.
   */
  readonly passesInput: boolean;
  listTools(): Promise<ListedTool[]>;
  /** Calls a tool; an input-required result asks the client first (2026-07-28). */
  call(
    name: string,
    args: Record<string, unknown>,
    turn: CallTurn,
  ): Promise<ToolResultShape | InputRequiredResult>;
  listResources(): Promise<ListedResource[]>;
  listTemplates(): Promise<ListedTemplate[]>;
  /** Reads a resource; `host` when the surface passes input (an upstream may ask it first). */
  readResource(uri: string, host?: HostRoundParams): Promise<ReadContent[] | InputRequiredResult>;
  /** Starts (`on`) or stops forwarding an upstream resource's changes for `uri`. */
  subscribe(uri: string, on: boolean): Promise<void>;
  listPrompts(): Promise<ListedPrompt[]>;
  /** Gets a prompt; `host` when the surface passes input (an upstream may ask it first). */
  getPrompt(
    name: string,
    args: Record<string, string>,
    host?: HostRoundParams,
  ): Promise<Record<string, unknown> | InputRequiredResult>;
  complete(
    ref: CompletionRef,
    argument: { name: string; value: string },
    context: Record<string, string>,
  ): Promise<Completion>;
  /** The URI a client knows an upstream's resource by, or null when this surface does not serve it. */
  clientUri(namespace: string, uri: string): string | null;
  /** Whether log messages of upstream `namespace` are relayed to the client (proxy exposures). */
  relaysLogsOf(namespace: string): boolean;
}
