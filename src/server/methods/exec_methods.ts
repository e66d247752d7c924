/**
 * RPC handlers that run code: `exec` (inline), `run` (named script), `wait`, `cancel`
 * (docs/protocol.md#runs). They turn params into a run request and apply `yieldAfterMs`.
 * @module
 */

import { join } from "node:path";
import {
  cancelParams,
  type ExecParams,
  execParams,
  runParams,
  waitParams,
} from "../../protocol/rpc_params.ts";
import { RpcCode, RpcError } from "../../protocol/json_rpc.ts";
import type { RunDocument, RunningDocument } from "../../protocol/run_document.ts";
import { resolveNamedScript } from "../../exec/named_scripts.ts";
import type { RunHandle, RunRequest } from "../../exec/script_runner.ts";
import type { ToolProgress } from "../../namespaces/namespace.ts";
import type { RunWaiting } from "../../protocol/run_waiting.ts";
import {
  type CallerContext,
  defineMethod,
  type MethodContext,
  type MethodGroup,
} from "../router.ts";
import type { ResolvedRoot } from "../../config/gateway_paths.ts";
import type { GatewayConfig } from "../../config/gateway_config.ts";
import type { HistoryStore } from "../../store/gateway_store.ts";
import type { Approvals } from "../approvals.ts";
import type { RunTracker } from "../run_tracker.ts";
import type { SharedRunState } from "../shared_run_state.ts";
import type { ScriptRunner } from "../../exec/script_runner.ts";

/** What the methods that run code work on. */
export interface ExecMethodParts {
  /** Admits runs (refusing while shutting down or overloaded) and follows them. */
  readonly runs: Pick<RunTracker, "exec" | "watchToolCalls" | "finished">;
  /** The runs in flight, which `wait` and `cancel` reach. */
  readonly runner: Pick<ScriptRunner, "active">;
  /** Calls held by `ask` rules, announced to the run's caller. */
  readonly approvals: Pick<Approvals, "onRequest" | "pending">;
  /** Runs of other instances on the same PostgreSQL; null for SQLite. */
  readonly shared: Pick<SharedRunState, "waitElsewhere"> | null;
  /** Where `wait` finds a run that is no longer remembered. */
  readonly history: Pick<HistoryStore, "get">;
  /** The configuration in force (read per call: a reload changes the limits). */
  readonly config: () => GatewayConfig;
  /** The root: a run's default cwd, and its `scripts/`. */
  readonly root: Pick<ResolvedRoot, "dir">;
}

type ExecContext = MethodContext<ExecMethodParts>;

function runRequest(
  params: Omit<ExecParams, "source">,
  context: ExecContext,
  source: { source: string; inline: boolean; name?: string },
): { request: RunRequest; bind: (handle: RunHandle) => void } {
  let runId = "";
  const notify = context.notify;
  const limits = context.config().exec;
  const maxStdin = limits.maxStdinBytes;
  const stdinBytes = new TextEncoder().encode(params.stdin ?? "").length;
  if (stdinBytes > maxStdin) {
    throw new RpcError(
      RpcCode.InvalidParams,
      `Invalid params: "stdin" is ${stdinBytes} bytes, over exec.maxStdinBytes (${maxStdin}): ` +
        `pipe less, or grant --allow-read to a file the script reads itself`,
    );
  }
  const request: RunRequest = {
    ...source,
    args: params.args,
    stdin: params.stdin ?? "",
    cwd: params.cwd ?? context.root.dir,
    client: params.client ?? context.client,
    ...(params.permissions ? { permissions: params.permissions } : {}),
    ...(params.timeoutMs !== undefined
      ? { timeoutMs: capped(params.timeoutMs, limits.timeoutMs, "timeoutMs") }
      : {}),
    ...(params.check !== undefined ? { check: params.check } : {}),
    ...(params.traceparent !== undefined ? { traceparent: params.traceparent } : {}),
    ...(params.maxOutputBytes !== undefined
      ? {
        maxOutputBytes: capped(
          params.maxOutputBytes,
          limits.maxOutputBytes,
          "maxOutputBytes",
        ),
      }
      : {}),
    ...(params.maxMemoryMb !== undefined
      ? {
        maxMemoryMb: capped(
          params.maxMemoryMb,
          limits.maxMemoryMb,
          "maxMemoryMb",
        ),
      }
      : {}),
    ...(params.maxToolCalls !== undefined
      ? {
        maxToolCalls: capped(
          params.maxToolCalls,
          limits.maxToolCalls,
          "maxToolCalls",
        ),
      }
      : {}),
    ...(params.callTimeoutMs !== undefined
      ? {
        callTimeoutMs: capped(
          params.callTimeoutMs,
          limits.callMaxMs,
          "callTimeoutMs",
        ),
      }
      : {}),
    ...(notify && params.progress
      ? {
        onWait: (waiting: Omit<RunWaiting, "runId">) =>
          notify("run.waiting", { runId, ...waiting }),
      }
      : {}),
    ...(notify && params.stream
      ? {
        onOutput: (stream: "stdout" | "stderr", text: string) =>
          notify("run.output", { runId, stream, text }),
        onProgress: (progress: ToolProgress & { namespace: string; tool: string }) =>
          notify("run.progress", { runId, ...progress }),
      }
      : {}),
  };
  return {
    request,
    bind: (handle) => {
      runId = handle.runId;
      if (!notify || !params.stream) return;
      // Each tool call of a streamed run is announced (`run.call`), so a client sees where the
      // run is; `run.progress` stays the upstream's own, only increasing, progress.
      const stop = context.runs.watchToolCalls(runId, (event) =>
        notify("run.call", {
          runId,
          namespace: event.namespace,
          tool: event.tool,
          phase: event.phase,
          message: event.phase === "called"
            ? "called"
            : `${event.phase} after ${event.durationMs} ms`,
        }));
      handle.done.finally(stop);
    },
  };
}

/**
 * Tells the caller about each call of the run an `ask` rule holds (`run.approval`), so the CLI
 * can print the `gateway approve` command and an MCP host can ask its user. Returns the
 * unsubscribe function.
 */
function announceApprovals(runId: string, context: ExecContext): () => void {
  const notify = context.notify;
  if (!notify) return () => {};
  return context.approvals.onRequest((pending) => {
    if (pending.runId === runId) notify("run.approval", pending);
  });
}

/** Per-run limits may be lowered by a caller, never raised past the config. */
function capped(value: number, max: number, name: string): number {
  if (value > max) {
    throw new RpcError(
      RpcCode.InvalidParams,
      `Invalid params: "${name}" ${value} is above the configured exec.${
        name === "callTimeoutMs" ? "callMaxMs" : name
      } (${max})`,
    );
  }
  return value;
}

/** Most runs whose yielded stdout is remembered; the oldest is forgotten past it. */
const MAX_YIELDED_RUNS = 1000;

/** By run id: how much of its stdout a yielded answer delivered (the largest, if several). */
const yieldedStdout = new Map<string, number>();

function rememberYielded(runId: string, length: number): void {
  yieldedStdout.delete(runId);
  yieldedStdout.set(runId, length);
  if (yieldedStdout.size > MAX_YIELDED_RUNS) {
    yieldedStdout.delete(yieldedStdout.keys().next().value!);
  }
}

/** A `wait` answer that says how much of its stdout a yielded answer already showed. */
function withYielded<T extends RunDocument | RunningDocument>(document: T): T {
  const shown = yieldedStdout.get(document.runId);
  if (shown === undefined || "status" in document) return document;
  return { ...document, stdoutYielded: Math.min(shown, document.stdout.length) };
}

async function answer(
  handle: RunHandle,
  yieldAfterMs: number,
  context: CallerContext,
  options: { cancelWhenGone: boolean } = { cancelWhenGone: true },
): Promise<RunDocument | RunningDocument> {
  if (yieldAfterMs <= 0 && !options.cancelWhenGone) return await handle.done;
  if (yieldAfterMs <= 0) {
    // A caller that goes away mid-run takes its run with it: nobody would read the answer.
    const onGone = () => handle.cancel("the caller disconnected");
    context.signal.addEventListener("abort", onGone, { once: true });
    try {
      return await handle.done;
    } finally {
      context.signal.removeEventListener("abort", onGone);
    }
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const yielded = new Promise<RunningDocument>((resolve) => {
    timer = setTimeout(() => {
      const stdout = handle.stdoutSoFar();
      if (options.cancelWhenGone) rememberYielded(handle.runId, stdout.length);
      resolve({ status: "running", runId: handle.runId, stdout });
    }, yieldAfterMs);
  });
  try {
    return await Promise.race([handle.done, yielded]);
  } finally {
    clearTimeout(timer);
  }
}

/** The handlers, keyed by method name. */
export const execMethods: MethodGroup<ExecMethodParts> = {
  exec: defineMethod(execParams, async (params, context) => {
    const { source, yieldAfterMs, ...rest } = params;
    const { request, bind } = runRequest(rest, context, { source, inline: true });
    const handle = context.runs.exec(request);
    bind(handle);
    const off = announceApprovals(handle.runId, context);
    try {
      return await answer(handle, yieldAfterMs ?? context.config().exec.yieldAfterMs, context);
    } finally {
      off();
    }
  }),
  run: defineMethod(runParams, async (params, context) => {
    const { name, yieldAfterMs, ...rest } = params;
    const script = await resolveNamedScript(join(context.root.dir, "scripts"), name);
    const source = await Deno.readTextFile(script.file);
    const { request, bind } = runRequest(rest, context, {
      source,
      inline: false,
      name: script.name,
    });
    const handle = context.runs.exec(request);
    bind(handle);
    const off = announceApprovals(handle.runId, context);
    try {
      return await answer(handle, yieldAfterMs ?? context.config().exec.yieldAfterMs, context);
    } finally {
      off();
    }
  }),
  wait: defineMethod(waitParams, async (params, context) => {
    const active = context.runner.active(params.runId);
    // Waiting never owns the run: an interrupted `gateway wait` leaves it going.
    if (active) {
      const off = announceApprovals(active.runId, context);
      // Calls held before this wait began are announced too.
      for (const pending of context.approvals.pending()) {
        if (pending.runId === active.runId) context.notify?.("run.approval", pending);
      }
      try {
        return withYielded(
          await answer(active, params.timeoutMs ?? 0, context, { cancelWhenGone: false }),
        );
      } finally {
        off();
      }
    }
    const finished = context.runs.finished(params.runId);
    if (finished) return withYielded(finished);
    // A run another instance on the same PostgreSQL runs: follow it until it is in history.
    const elsewhere = await context.shared?.waitElsewhere(
      params.runId,
      params.timeoutMs ?? 0,
      context.signal,
    );
    if (elsewhere === "running") {
      return { status: "running", runId: params.runId, stdout: "" } satisfies RunningDocument;
    }
    const stored = await context.history.get(params.runId);
    if (stored) {
      return withYielded(
        {
          runId: stored.runId,
          ok: stored.status === "ok",
          ...(stored.result !== null ? { result: JSON.parse(stored.result) } : {}),
          stdout: stored.stdout,
          stderr: stored.stderr,
          exitCode: stored.exitCode,
          durationMs: stored.durationMs,
          toolCalls: stored.toolCalls.length,
          stdoutTruncated: stored.stdoutCapped,
          warnings: [],
          attachments: [],
          ...(stored.errorKind
            ? { error: { kind: stored.errorKind, message: stored.errorMessage ?? "" } }
            : {}),
        } satisfies RunDocument,
      );
    }
    throw new RpcError(
      RpcCode.InvalidParams,
      `No run "${params.runId}": gateway history lists runs`,
    );
  }),
  cancel: defineMethod(cancelParams, (params, context) => {
    const active = context.runner.active(params.runId);
    if (!active) {
      throw new RpcError(
        RpcCode.InvalidParams,
        `No run "${params.runId}" is in flight (it may have finished: see gateway history show ${params.runId})`,
      );
    }
    active.cancel("cancelled by request");
    return Promise.resolve({ cancelled: true, runId: params.runId });
  }),
};
