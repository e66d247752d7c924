/**
 * Runs as the gateway admits and follows them: refusal while shutting down or overloaded, the
 * live events the dashboard and MCP progress follow, the shared run state on PostgreSQL, and
 * the finished-runs cache `wait` reads after a run ends.
 * @module
 */

import type { RunHandle, RunRequest, ScriptRunner } from "../exec/script_runner.ts";
import type { RunDocument } from "../protocol/run_document.ts";
import { FinishedRuns } from "./finished_runs.ts";
import { GatewayRefusal } from "./gateway_refusal.ts";
import type { SharedRunState } from "./shared_run_state.ts";

/** A run starting or finishing, as the dashboard's live view shows it. */
export interface RunEvent {
  event: "started" | "finished";
  runId: string;
  client: string;
  ok?: boolean;
  errorKind?: string;
  durationMs?: number;
}

/** A run's tool call starting or ending. */
export interface ToolCallEvent {
  namespace: string;
  tool: string;
  phase: "called" | "answered" | "failed";
  durationMs?: number;
}

/** Admits runs to the runner and tells listeners about them. */
export class RunTracker {
  readonly #runner: () => ScriptRunner;
  readonly #shared: SharedRunState | null;
  readonly #maxQueuedRuns: () => number;
  readonly #finished = new FinishedRuns();
  readonly #runListeners = new Set<(event: RunEvent) => void>();
  readonly #toolCallWatchers = new Map<string, (event: ToolCallEvent) => void>();
  #shuttingDown = false;
  /** Runs started and not yet answered. */
  #inFlight = 0;
  /** Waiters for a moment with no run in flight. */
  #idleWaiters: (() => void)[] = [];

  constructor(options: {
    runner: () => ScriptRunner;
    shared: SharedRunState | null;
    maxQueuedRuns: () => number;
  }) {
    this.#runner = options.runner;
    this.#shared = options.shared;
    this.#maxQueuedRuns = options.maxQueuedRuns;
  }

  /** Starts a run; throws `GatewayRefusal` while shutting down or when the queue is full. */
  exec(request: RunRequest): RunHandle {
    if (this.#shuttingDown) {
      throw new GatewayRefusal(
        "ShuttingDown",
        "The gateway is shutting down and takes no new runs: retry once it is back",
      );
    }
    const runner = this.#runner();
    if (runner.queuedCount >= this.#maxQueuedRuns()) {
      // Backpressure: refuse at once rather than queue without bound.
      throw new GatewayRefusal(
        "Overloaded",
        `Overloaded: ${runner.queuedCount} runs are already waiting (exec.maxQueuedRuns); retry shortly`,
        { retryAfterMs: 1000 },
      );
    }
    const handle = runner.start(request);
    this.#inFlight++;
    handle.done.catch(() => {}).finally(() => {
      if (--this.#inFlight > 0) return;
      for (const resolve of this.#idleWaiters.splice(0)) resolve();
    });
    this.#emitRun({ event: "started", runId: handle.runId, client: request.client });
    this.#shared?.runStarted({
      runId: handle.runId,
      startedAt: Date.now(),
      source: request.source,
      args: request.args,
      stdinBytes: new TextEncoder().encode(request.stdin).length,
      cwd: request.cwd,
      client: request.client,
      name: request.name ?? null,
    });
    handle.done.then((doc) => {
      this.#emitRun({
        event: "finished",
        runId: doc.runId,
        client: request.client,
        ok: doc.ok,
        ...(doc.error ? { errorKind: doc.error.kind } : {}),
        durationMs: doc.durationMs,
      });
      this.#finished.add(doc);
    });
    return handle;
  }

  /** Resolves once no run is in flight (at once when none is). */
  idle(): Promise<void> {
    if (this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Refuses new runs from now on. */
  beginShutdown(): void {
    this.#shuttingDown = true;
  }

  /** A finished run's document, while it is still remembered. */
  finished(runId: string): RunDocument | undefined {
    return this.#finished.get(runId);
  }

  /**
   * Tells `listener` when run `runId` calls a tool and when the call ends (an MCP client's
   * progress notifications); returns the function that stops it.
   */
  watchToolCalls(runId: string, listener: (event: ToolCallEvent) => void): () => void {
    this.#toolCallWatchers.set(runId, listener);
    return () => this.#toolCallWatchers.delete(runId);
  }

  /** The watcher of run `runId`'s tool calls, if any. */
  toolCallWatcher(runId: string): ((event: ToolCallEvent) => void) | undefined {
    return this.#toolCallWatchers.get(runId);
  }

  /** Tells `listener` when a run starts and finishes (the dashboard's live view). */
  onRun(listener: (event: RunEvent) => void): () => void {
    this.#runListeners.add(listener);
    return () => this.#runListeners.delete(listener);
  }

  #emitRun(event: RunEvent): void {
    for (const listener of this.#runListeners) listener(event);
  }
}
