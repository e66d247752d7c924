/**
 * The last stage of every run, however it ended (refused before it started, or after its
 * process exited): the failure explained with its fix, output capped for the caller, the run
 * document built and written to history before anyone is answered
 * (docs/architecture.md#history): an answered run is always in history.
 * @module
 */

import type { ExecConfig } from "../config/gateway_config.ts";
import type { ToolMap } from "../protocol/channel_messages.ts";
import type { RunDocument, RunError } from "../protocol/run_document.ts";
import type { RunTrace } from "../telemetry/gateway_telemetry.ts";
import type { ToolCallRecord } from "../store/run_history.ts";
import { capForCaller } from "./output_capture.ts";
import { explainRunError, type RunErrorContext } from "./run_error_hints.ts";
import type { FinishedRun, RunRequest } from "./run_request.ts";

/** What a run's finish needs to know; one per run. */
export interface RunFinishContext {
  runId: string;
  request: RunRequest;
  startedAt: number;
  exec: ExecConfig;
  /** Bytes of stdout/stderr (and result) the caller is sent. */
  maxOutputBytes: number;
  trace: RunTrace;
  /** The call records so far (the broker's, once the run has one). */
  toolCalls: () => ToolCallRecord[];
  toolMap: () => ToolMap;
  /** The top-level fields of a tool's output, for hints about an object used as an array. */
  outputFields?: (namespace: string, tool: string) => string[] | null;
  configDir: string | null;
  /** Writes the run to history; false when the write failed (the run still stands). */
  record(run: FinishedRun): boolean | Promise<boolean>;
  log(message: string): void;
}

/** The run's captured output, whole (history-capped), with what was written in all. */
export interface RunOutput {
  stdout: string;
  stderr: string;
  stdoutTotal?: number;
  stderrTotal?: number;
}

const NO_OUTPUT: RunOutput = { stdout: "", stderr: "" };

/** Explains failures and finishes one run; see the module doc. */
export class RunFinish {
  readonly #context: RunFinishContext;

  constructor(context: RunFinishContext) {
    this.#context = context;
  }

  /**
   * The failure with its fix (nearest tool names, the limit or config key to change); `steps`
   * first map it back to the author's text. A hint that cannot be built never costs the run its
   * answer: the failure is then returned as it came.
   */
  explain(
    error: RunError,
    steps: (error: RunError) => RunError = (e) => e,
    facts: { stallLines?: readonly number[] } = {},
  ): RunError {
    try {
      return explainRunError(steps(error), {
        ...this.#hintContext(),
        ...(facts.stallLines ? { stallLines: facts.stallLines } : {}),
      });
    } catch (cause) {
      this.#context.log(`Cannot explain a ${error.kind} failure: ${(cause as Error).message}`);
      return error;
    }
  }

  /** Finishes a run that failed before its script ran (no output, no exit code). */
  failEarly(error: RunError, warnings: string[]): Promise<RunDocument> {
    return this.finish({ ok: false, error: this.explain(error), exitCode: null, warnings });
  }

  /**
   * Builds the document the caller gets (output capped to `maxOutputBytes`, with the history
   * id to read the rest), writes the run to history and only then resolves. `output` is kept
   * whole for history; `fullResult` is the untruncated result when the document's was cut.
   */
  async finish(
    partial: Partial<RunDocument> & { ok: boolean },
    output: RunOutput = NO_OUTPUT,
    fullResult?: unknown,
  ): Promise<RunDocument> {
    const { runId, maxOutputBytes, startedAt, request, trace } = this.#context;
    const out = capForCaller("stdout", output.stdout, {
      total: output.stdoutTotal,
      maxBytes: maxOutputBytes,
      runId,
    });
    const err = capForCaller("stderr", output.stderr, {
      total: output.stderrTotal,
      maxBytes: maxOutputBytes,
      runId,
    });
    const toolCalls = this.#context.toolCalls();
    const document: RunDocument = {
      runId,
      ok: partial.ok,
      stdout: out.text,
      stderr: err.text,
      exitCode: partial.exitCode ?? null,
      durationMs: Date.now() - startedAt,
      toolCalls: toolCalls.length,
      stdoutTruncated: out.truncated,
      warnings: partial.warnings ?? [],
      attachments: partial.attachments ?? [],
      ...(partial.result !== undefined ? { result: partial.result } : {}),
      ...(partial.resultTruncated ? { resultTruncated: true } : {}),
      ...(partial.error ? { error: partial.error } : {}),
    };
    const saved = await trace.step("gateway.history_write", () =>
      this.#context.record({
        document,
        request,
        startedAt,
        stdout: output.stdout,
        stderr: output.stderr,
        stdoutBytes: out.total,
        stderrBytes: err.total,
        toolCalls,
        ...(fullResult !== undefined ? { fullResult } : {}),
      }));
    document.history = saved ? "saved" : "failed";
    trace.end({
      ok: document.ok,
      ...(document.error ? { kind: document.error.kind } : {}),
      toolCalls: document.toolCalls,
      durationMs: document.durationMs,
    });
    return document;
  }

  #hintContext(): RunErrorContext {
    const { request, exec } = this.#context;
    return {
      source: request.source,
      toolMap: this.#context.toolMap(),
      limits: {
        timeoutMs: request.timeoutMs ?? exec.timeoutMs,
        callTimeoutMs: request.callTimeoutMs ?? exec.callTimeoutMs,
        maxToolCalls: request.maxToolCalls ?? exec.maxToolCalls,
        maxMemoryMb: request.maxMemoryMb ?? exec.maxMemoryMb,
      },
      ceiling: exec.maxPermissions,
      configDir: this.#context.configDir,
      cwd: request.cwd,
      ...(this.#context.outputFields ? { outputFields: this.#context.outputFields } : {}),
    };
  }
}
