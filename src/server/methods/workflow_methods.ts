/**
 * RPC handlers `workflow.start|step|status|reset|abort|list|log`. Each answer
 * carries the view as JSON and as the plain text agents read (`text`).
 * @module
 */

import { workflowParams } from "../../protocol/rpc_params.ts";
import { RpcCode, RpcError } from "../../protocol/json_rpc.ts";
import { defaultSessionName } from "../../workflows/default_session_name.ts";
import { renderWorkflowText } from "../../workflows/workflow_text.ts";
import { defineMethod, type MethodContext, type MethodDefinition } from "../router.ts";
import type { z } from "zod";

type WorkflowParams = z.infer<typeof workflowParams>;

function session(params: WorkflowParams, context: MethodContext): { session: string; cwd: string } {
  const cwd = params.cwd ?? context.core.paths.root.dir;
  return { session: params.session ?? defaultSessionName(cwd), cwd };
}

function withText<V extends Parameters<typeof renderWorkflowText>[0]>(
  view: V,
): V & { text: string } {
  return { ...view, text: renderWorkflowText(view) };
}

/** A workflow method; a `WorkflowError` it throws becomes its wire error in the router. */
function workflowMethod(
  handle: (params: WorkflowParams, context: MethodContext) => Promise<unknown>,
): MethodDefinition {
  return defineMethod(workflowParams, handle);
}

/** The handlers, keyed by method name. */
export const workflowMethods: Record<string, MethodDefinition> = {
  "workflow.start": workflowMethod(async (params, context) => {
    if (!params.file) {
      throw new RpcError(
        RpcCode.InvalidParams,
        'Invalid params for "workflow.start": "file" is required',
      );
    }
    return withText(
      await (await context.core.workflows.get()).start({
        ...session(params, context),
        file: params.file,
        ...(params.vars ? { vars: params.vars } : {}),
      }),
    );
  }),
  "workflow.step": workflowMethod(async (params, context) =>
    withText(
      await (await context.core.workflows.get()).step({
        ...session(params, context),
        ...(params.endLoop !== undefined ? { endLoop: params.endLoop } : {}),
      }),
    )
  ),
  "workflow.status": workflowMethod(
    async (params, context) =>
      withText(await (await context.core.workflows.get()).status(session(params, context))),
  ),
  "workflow.reset": workflowMethod(
    async (params, context) =>
      withText(await (await context.core.workflows.get()).reset(session(params, context))),
  ),
  "workflow.abort": workflowMethod(async (params, context) => {
    if (!params.reason) {
      throw new RpcError(
        RpcCode.InvalidParams,
        'Invalid params for "workflow.abort": "reason" is required (--reason "…")',
      );
    }
    return withText(
      await (await context.core.workflows.get()).abort({
        ...session(params, context),
        reason: params.reason,
      }),
    );
  }),
  "workflow.list": workflowMethod(
    async (_params, context) =>
      withText(
        await (await context.core.workflows.get()).list({ root: context.core.paths.root.dir }),
      ),
  ),
  "workflow.log": workflowMethod(
    async (params, context) =>
      withText(await (await context.core.workflows.get()).log(session(params, context))),
  ),
};
