/**
 * What a caller asks of a run and what history receives about it: the types shared by the
 * runner's stages (preflight, call broker, finish) and the server that starts runs.
 * @module
 */

import type { PermissionSet } from "../config/gateway_config.ts";
import type { RunDocument } from "../protocol/run_document.ts";
import type { ToolProgress } from "../protocol/tool_call.ts";
import type { ToolCallRecord } from "../store/run_history.ts";
import type { RunWaiting } from "../protocol/run_waiting.ts";

/** What a caller asks for. Limits absent here come from `exec` config. */
export interface RunRequest {
  source: string;
  /** Inline snippets report their last expression as `result`; named scripts do not. */
  inline: boolean;
  /** The named script's name, for history. */
  name?: string;
  args: string[];
  stdin: string;
  cwd: string;
  client: string;
  permissions?: PermissionSet;
  timeoutMs?: number;
  check?: boolean;
  maxOutputBytes?: number;
  maxMemoryMb?: number;
  maxToolCalls?: number;
  callTimeoutMs?: number;
  /** Live output, for `run.output` notifications and TTY streaming. */
  onOutput?: (stream: "stdout" | "stderr", text: string) => void;
  /** Upstream progress of the run's tool calls, for `run.progress` notifications. */
  onProgress?: (progress: ToolProgress & { namespace: string; tool: string }) => void;
  /** What the run waits for before it starts, for `run.waiting` notifications. */
  onWait?: (waiting: Omit<RunWaiting, "runId">) => void;
  /** The caller's W3C trace context; the run's span becomes its child. */
  traceparent?: string;
}

/** Everything history needs about a finished run beyond its document. */
export interface FinishedRun {
  document: RunDocument;
  request: RunRequest;
  startedAt: number;
  /** Full (history-capped) stdout and stderr. */
  stdout: string;
  stderr: string;
  /**
   * Bytes the run wrote to stdout and stderr in all, kept or not: larger than the kept text
   * when a flood was cut at capture, so history can say the stored text is capped.
   */
  stdoutBytes: number;
  stderrBytes: number;
  toolCalls: ToolCallRecord[];
  /** The whole result when the document carries a truncated one; history keeps it. */
  fullResult?: unknown;
}
