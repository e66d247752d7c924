/**
 * RPC handlers for calls held by `ask` policy rules: `approval.list`,
 * `approval.watch` (notifications of new held calls) and `approval.respond`.
 * @module
 */

import { z } from "zod";
import { approvalParams } from "../../protocol/rpc_params.ts";
import { RpcCode, RpcError } from "../../protocol/json_rpc.ts";
import { defineMethod, type MethodGroup } from "../router.ts";
import type { Approvals } from "../approvals.ts";
import type { SharedRunState } from "../shared_run_state.ts";

/** What the approval methods work on. */
export interface ApprovalMethodParts {
  /** The calls this gateway holds. */
  readonly approvals: Pick<Approvals, "pending" | "onRequest" | "respond">;
  /** Calls other instances on the same PostgreSQL hold; null for SQLite. */
  readonly shared: Pick<SharedRunState, "pendingElsewhere" | "answerElsewhere"> | null;
}

/** The handlers, keyed by method name. */
export const approvalMethods: MethodGroup<ApprovalMethodParts> = {
  "approval.list": defineMethod(
    z.strictObject({}),
    async (_params, context) => ({
      pending: [
        ...context.approvals.pending(),
        ...(await context.shared?.pendingElsewhere() ?? []),
      ],
    }),
  ),
  "approval.watch": defineMethod(z.strictObject({}), (_params, context) => {
    // Pushes `approval.pending` for every new held call until the connection closes, so a
    // dashboard shows it at once instead of at its next poll.
    const notify = context.notify;
    if (!notify) {
      throw new RpcError(
        RpcCode.InvalidRequest,
        "approval.watch needs a connection that takes notifications: call it over WebSocket",
      );
    }
    const off = context.approvals.onRequest((pending) => notify("approval.pending", pending));
    context.signal.addEventListener("abort", off, { once: true });
    return Promise.resolve({ watching: true });
  }),
  "approval.respond": defineMethod(approvalParams, async (params, context) => {
    const decision = { allowed: params.allow, by: params.by ?? context.client };
    // A call another instance on the same PostgreSQL holds is answered through the store.
    const answered = context.approvals.respond(params.runId, decision) ||
      (await context.shared?.answerElsewhere(params.runId, decision) ?? 0);
    if (answered === 0) {
      throw new RpcError(
        RpcCode.InvalidParams,
        `No call of run "${params.runId}" is waiting for approval (gateway approvals lists them)`,
      );
    }
    return { answered, allowed: params.allow };
  }),
};
