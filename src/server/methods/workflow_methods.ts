/**
 * RPC handlers `workflow.start|step|status|reset|abort|list|log`. Each answer
 * carries the view as JSON and as the plain text agents read (`text`).
 * @module
 */

import { workflowParams } from "../../protocol/rpc_params.ts";
import { RpcCode, RpcError } from "../../protocol/json_rpc.ts";
import { defaultSessionName } from "../../workflows/default_session_name.ts";
import { renderWorkflowText } from "../../workflows/workflow_text.ts";
import {
  defineMethod,
  type MethodContext,
  type MethodDefinition,
  type MethodGroup,
} from "../router.ts";
import type { z } from "zod";
import type { ResolvedRoot } from "../../config/gateway_paths.ts";
import type { WorkflowsOnDemand } from "../workflows_on_demand.ts";

/** What the workflow methods work on. */
export interface WorkflowMethodParts {
  /** The workflow service, loaded on first use. */
  readonly workflows: Pick<WorkflowsOnDemand, "get">;
  /** The root: a session's default directory, and where workflow files are listed. */
  readonly root: Pick<ResolvedRoot, "dir">;
}

type WorkflowParams = z.infer<typeof workflowParams>;
type WorkflowContext = MethodContext<WorkflowMethodParts>;

function session(
  params: WorkflowParams,
  context: WorkflowContext,
): { session: string; cwd: string } {
  const cwd = params.cwd ?? context.root.dir;
  return { session: params.session ?? defaultSessionName(cwd), cwd };
}

function withText<V extends Parameters<typeof renderWorkflowText>[0]>(
  view: V,
): V & { text: string } {
  return { ...view, text: renderWorkflowText(view) };
}

/** A workflow method; a `WorkflowError` it throws becomes its wire error in the router. */
function workflowMethod(
  handle: (params: WorkflowParams, context: WorkflowContext) => Promise<unknown>,
): MethodDefinition<WorkflowMethodParts> {
  return defineMethod(workflowParams, handle);
}

/** The handlers, keyed by method name. */
export const workflowMethods: MethodGroup<WorkflowMethodParts> = {
  "workflow.start": workflowMethod(async (params, context) => {
    if (!params.file) {
      throw new RpcError(
        RpcCode.InvalidParams,
        'Invalid params for "workflow.start": "file" is required',
      );
    }
    return withText(
      await (await context.workflows.get()).start({
        ...session(params, context),
        file: params.file,
        ...(params.vars ? { vars: params.vars } : {}),
      }),
    );
  }),
  "workflow.step": workflowMethod(async (params, context) =>
    withText(
      await (await context.workflows.get()).step({
        ...session(params, context),
        ...(params.endLoop !== undefined ? { endLoop: params.endLoop } : {}),
      }),
    )
  ),
  "workflow.status": workflowMethod(
    async (params, context) =>
      withText(await (await context.workflows.get()).status(session(params, context))),
  ),
  "workflow.reset": workflowMethod(
    async (params, context) =>
      withText(await (await context.workflows.get()).reset(session(params, context))),
  ),
  "workflow.abort": workflowMethod(async (params, context) => {
    if (!params.reason) {
      throw new RpcError(
        RpcCode.InvalidParams,
        'Invalid params for "workflow.abort": "reason" is required (--reason "…")',
      );
    }
    return withText(
      await (await context.workflows.get()).abort({
        ...session(params, context),
        reason: params.reason,
      }),
    );
  }),
  "workflow.list": workflowMethod(
    async (_params, context) =>
      withText(
        await (await context.workflows.get()).list({ root: context.root.dir }),
      ),
  ),
  "workflow.log": workflowMethod(
    async (params, context) =>
      withText(await (await context.workflows.get()).log(session(params, context))),
  ),
};
