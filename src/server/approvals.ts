/**
 * Calls held by an `ask` policy rule: each waits, with its run still going, until
 * someone answers (`gateway approve`, RPC `approval.respond`, the dashboard) or the run ends,
 * which counts as a denial.
 * @module
 */

import type { PendingApproval } from "../protocol/wire_views.ts";

export type { PendingApproval };

/** The answer a held call got. */
export interface ApprovalDecision {
  allowed: boolean;
  by: string;
  at: number;
}

interface Held extends PendingApproval {
  resolve(decision: ApprovalDecision): void;
}

/** The calls waiting for an answer, oldest first. */
export class Approvals {
  readonly #held = new Map<string, Held>();
  readonly #listeners = new Set<(pending: PendingApproval) => void>();
  readonly #answerListeners = new Set<
    (answer: { id: string; runId: string; allowed: boolean; by: string }) => void
  >();
  readonly #settledListeners = new Set<(id: string) => void>();
  #next = 1;

  /** Holds a call until it is answered or `signal` aborts (then it is denied by "deadline"). */
  request(
    call: Omit<PendingApproval, "id" | "since" | "args"> & {
      args: unknown;
      signal: AbortSignal;
      /** Unanswered after this long, the call is denied by "deadline". */
      timeoutMs?: number;
    },
  ): Promise<ApprovalDecision> {
    const id = `${call.runId}:${this.#next++}`;
    let args: string;
    try {
      args = JSON.stringify(call.args) ?? "";
    } catch {
      args = String(call.args);
    }
    return new Promise((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const finish = (decision: ApprovalDecision) => {
        if (!this.#held.delete(id)) return;
        clearTimeout(timer);
        for (const listener of this.#settledListeners) listener(id);
        call.signal.removeEventListener("abort", onAbort);
        for (const listener of this.#answerListeners) {
          listener({ id, runId: call.runId, allowed: decision.allowed, by: decision.by });
        }
        resolve(decision);
      };
      const onAbort = () => finish({ allowed: false, by: "deadline", at: Date.now() });
      const held: Held = {
        id,
        runId: call.runId,
        namespace: call.namespace,
        tool: call.tool,
        args: args.length > 500 ? `${args.slice(0, 500)}…` : args,
        rule: call.rule,
        since: Date.now(),
        resolve: finish,
      };
      this.#held.set(id, held);
      if (call.signal.aborted) {
        onAbort();
        return;
      }
      call.signal.addEventListener("abort", onAbort, { once: true });
      if (call.timeoutMs !== undefined) timer = setTimeout(onAbort, Math.max(0, call.timeoutMs));
      for (const listener of this.#listeners) listener(publicView(held));
    });
  }

  /**
   * Answers the held calls of a run (or one call, by its `RUNID:N` id). Returns how many were
   * answered; 0 means nothing of that id is waiting.
   */
  respond(id: string, decision: { allowed: boolean; by: string }): number {
    const targets = [...this.#held.values()].filter((h) => h.id === id || h.runId === id);
    const at = Date.now();
    for (const held of targets) held.resolve({ ...decision, at });
    return targets.length;
  }

  /** Held calls, oldest first. */
  pending(): PendingApproval[] {
    return [...this.#held.values()].map(publicView);
  }

  /** Tells `listener` who answered each held call (the dashboard shows it live). */
  onAnswer(
    listener: (answer: { id: string; runId: string; allowed: boolean; by: string }) => void,
  ): () => void {
    this.#answerListeners.add(listener);
    return () => this.#answerListeners.delete(listener);
  }

  /** Tells `listener` about every new held call; returns an unsubscribe function. */
  onRequest(listener: (pending: PendingApproval) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Tells `listener` the id of every held call once answered or ended; returns unsubscribe. */
  onSettled(listener: (id: string) => void): () => void {
    this.#settledListeners.add(listener);
    return () => this.#settledListeners.delete(listener);
  }
}

function publicView(held: Held): PendingApproval {
  const { resolve: _resolve, ...view } = held;
  return view;
}
