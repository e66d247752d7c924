/**
 * RPC handlers for calls held by `ask` policy rules (SPEC §13): `approval.list` and
 * `approval.respond`.
 * @module
 */

import { z } from "zod";
import { approvalParams } from "../../protocol/rpc_params.ts";
import { RpcCode, RpcError } from "../../protocol/json_rpc.ts";
import { defineMethod, type MethodDefinition } from "../router.ts";

/** The handlers, keyed by method name. */
export const approvalMethods: Record<string, MethodDefinition> = {
  "approval.list": defineMethod(
    z.strictObject({}),
    async (_params, context) => ({
      pending: [
        ...context.core.approvals.pending(),
        ...(await context.core.shared?.pendingElsewhere() ?? []),
      ],
    }),
  ),
  "approval.respond": defineMethod(approvalParams, async (params, context) => {
    const decision = { allowed: params.allow, by: params.by ?? context.client };
    // A call another instance on the same PostgreSQL holds is answered through the store.
    const answered = context.core.approvals.respond(params.runId, decision) ||
      (await context.core.shared?.answerElsewhere(params.runId, decision) ?? 0);
    if (answered === 0) {
      throw new RpcError(
        RpcCode.InvalidParams,
        `No call of run "${params.runId}" is waiting for approval (gateway approvals lists them)`,
      );
    }
    return { answered, allowed: params.allow };
  }),
};
