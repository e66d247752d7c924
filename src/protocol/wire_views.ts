/**
 * Shapes the server sends and the CLI reads that are not run documents: namespace rows and
 * calls waiting for approval. Kept here so both sides share one definition.
 * @module
 */

/** One namespace as `gateway tools`, `/namespaces` and `/health` list it. */
export interface NamespaceSummary {
  name: string;
  identifier: string;
  kind: string;
  status: string;
  /** Why it failed, when `status` is "failed". */
  reason?: string;
  tools: number;
  /** An MCP server's prompts (`gateway tools NS` lists them). */
  prompts?: { name: string; description: string }[];
  /** What loading left out or loosened, and why (API namespaces); `gateway tools NS` lists them. */
  notes?: string[];
}

/** A tool call an `ask` policy rule holds, as `gateway approvals` lists it. */
export interface PendingApproval {
  /** `RUNID:N`, to answer one call of a run. */
  id: string;
  runId: string;
  namespace: string;
  tool: string;
  /** The call's arguments as JSON, cut to 500 characters, so the person answering sees them. */
  args: string;
  rule: string;
  since: number;
}

/** One upstream tool as `upstream.tools` answers it: what an MCP `tools/list` entry needs. */
export interface UpstreamTool {
  namespace: string;
  identifier: string;
  /** The upstream's name for the tool: what is sent upstream and what MCP hosts see. */
  name: string;
  /**
   * The name a script types (`tools.<identifier>.<toolIdentifier>`), which the dashboard shows;
   * `upstream.tools` always sets it (the MCP proxy names tools its own way and needs none).
   */
  toolIdentifier?: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}
