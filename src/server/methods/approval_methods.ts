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
    (_params, context) => Promise.resolve({ pending: context.core.approvals.pending() }),
  ),
  "approval.respond": defineMethod(approvalParams, (params, context) => {
    const answered = context.core.approvals.respond(params.runId, {
      allowed: params.allow,
      by: params.by ?? context.client,
    });
    if (answered === 0) {
      throw new RpcError(
        RpcCode.InvalidParams,
        `No call of run "${params.runId}" is waiting for approval (gateway approvals lists them)`,
      );
    }
    return Promise.resolve({ answered, allowed: params.allow });
  }),
};
