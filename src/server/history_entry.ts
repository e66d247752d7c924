/**
 * The mapping from a finished run to its history row: what `gateway history` keeps of a run.
 * @module
 */

import type { FinishedRun } from "../exec/script_runner.ts";
import type { RunRecord } from "../store/run_history.ts";

/** The history row of a finished run; the full result when the document carries a cut one. */
export function historyEntryOf(run: FinishedRun): RunRecord {
  const { document, request } = run;
  return {
    runId: document.runId,
    startedAt: run.startedAt,
    durationMs: document.durationMs,
    source: request.source,
    args: request.args,
    stdinBytes: new TextEncoder().encode(request.stdin).length,
    cwd: request.cwd,
    client: request.client,
    status: document.ok ? "ok" : "failed",
    errorKind: document.error?.kind ?? null,
    errorMessage: document.error?.message ?? null,
    stdout: run.stdout,
    stderr: run.stderr,
    result: run.fullResult !== undefined
      ? JSON.stringify(run.fullResult)
      : document.result === undefined
      ? null
      : JSON.stringify(document.result),
    exitCode: document.exitCode,
    toolCalls: run.toolCalls,
    name: request.name ?? null,
    stdoutTotalBytes: run.stdoutBytes,
    stderrTotalBytes: run.stderrBytes,
  };
}
