/**
 * The server side of several instances on one PostgreSQL database: publishes this
 * instance's runs in flight and held calls to the shared store, lets `wait` follow a run another
 * instance runs, and routes approval answers given on any instance to the one holding the call.
 * Absent (null in the core) for the embedded SQLite store.
 * @module
 */

import type { Coordination, LiveRun } from "../store/gateway_store.ts";
import type { Approvals, PendingApproval } from "./approvals.ts";
import { messageOf } from "../protocol/message_of.ts";

/** What `wait` found for a run this instance does not know. */
export type ElsewhereState = "done" | "running" | "unknown";

/** Glue between the core's in-memory run state and the shared store. */
export class SharedRunState {
  readonly #coordination: Coordination;
  readonly #approvals: Approvals;
  readonly #log: (message: string) => void;
  readonly #liveStarts = new Map<string, Promise<void>>();
  readonly #heldWrites = new Map<string, Promise<void>>();
  readonly #unsubscribe: (() => void)[] = [];

  /** Subscribes to `approvals` and to answers from other instances at once. */
  constructor(coordination: Coordination, approvals: Approvals, log: (message: string) => void) {
    this.#coordination = coordination;
    this.#approvals = approvals;
    this.#log = log;
    this.#unsubscribe.push(
      approvals.onRequest((view) => {
        this.#heldWrites.set(
          view.id,
          coordination.held(view).catch((error) =>
            log(`cannot share held call "${view.id}" with the other instances: ${messageOf(error)}`)
          ),
        );
      }),
      approvals.onSettled((id) => {
        const written = this.#heldWrites.get(id) ?? Promise.resolve();
        this.#heldWrites.delete(id);
        written.then(() => coordination.settled(id)).catch((error) =>
          log(`cannot remove settled call "${id}" from the shared store: ${messageOf(error)}`)
        );
      }),
      coordination.onAnswer((id, decision) => {
        approvals.respond(id, { allowed: decision.allowed, by: decision.by });
      }),
    );
  }

  /** Records a run as in flight here; its history write waits for this first. */
  runStarted(run: LiveRun): void {
    this.#liveStarts.set(
      run.runId,
      this.#coordination.started(run).catch((error) =>
        this.#log(`cannot share run "${run.runId}" with the other instances: ${messageOf(error)}`)
      ),
    );
  }

  /** Resolves once the run's "in flight" row is written, so recording it removes that row. */
  async beforeRecord(runId: string): Promise<void> {
    const started = this.#liveStarts.get(runId);
    this.#liveStarts.delete(runId);
    await started;
  }

  /**
   * For `wait` on a run this instance does not have: "done" once another instance finished it
   * (it is in history), "running" when `timeoutMs` passed first, "unknown" when no instance runs
   * it.
   */
  async waitElsewhere(
    runId: string,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<ElsewhereState> {
    if (!(await this.#coordination.isLive(runId))) return "unknown";
    return await this.#coordination.waitDone(runId, timeoutMs, signal) ? "done" : "running";
  }

  /** Calls other instances hold for approval. */
  pendingElsewhere(): Promise<PendingApproval[]> {
    return this.#coordination.pendingElsewhere();
  }

  /** Answers calls other instances hold; resolves to how many were answered. */
  answerElsewhere(id: string, decision: { allowed: boolean; by: string }): Promise<number> {
    return this.#coordination.answer(id, { ...decision, at: Date.now() });
  }

  /** Stops listening to the approvals. */
  close(): void {
    for (const unsubscribe of this.#unsubscribe) unsubscribe();
  }
}
