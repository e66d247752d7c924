/**
 * Long runs as tasks (the `io.modelcontextprotocol/tasks` extension of 2026-07-28): a client
 * that declares the extension on a `tools/call` of `exec` or `run_script` gets a task whose id is
 * the run's id, so the same run is in `gateway history`, the dashboard and `gateway wait`.
 * `tasks/get` follows the run (`wait` with a short timeout, from any instance on the same
 * database) and inlines its result once it ended; a run with held calls is `input_required`,
 * its held calls the input requests; `tasks/update` answers them (`approval.respond`);
 * `tasks/cancel` cancels the run (`cancel`).
 * @module
 */

import {
  type InputRequiredResult,
  type InputResponses,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import { RpcCode, RpcError } from "../protocol/json_rpc.ts";
import type { RunDocument, RunningDocument } from "../protocol/run_document.ts";
import type { PendingApproval } from "../protocol/wire_views.ts";
import { heldCallText } from "./call_turn.ts";
import { declaredCapabilities } from "./host_round.ts";
import type { CodeSurface } from "./code_surface.ts";
import { adaptToolResult } from "./content_for_revision.ts";
import type { GatewayCall } from "./gateway_call.ts";
import { answerHeld, heldInputRequests } from "./held_calls.ts";
import { toMcpError } from "./mcp_errors.ts";
import type { McpServerParts, TaskStarter } from "./mcp_server_parts.ts";
import { isRunDocument, runToToolResult } from "./run_tool_result.ts";

/** The extension's identifier, in capabilities and `_meta` envelopes. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
/** The code-mode tools that run as tasks, and the gateway method each starts. */
const TASK_TOOLS: Readonly<Record<string, string>> = { exec: "exec", run_script: "run" };
/** How long a task stays readable: its run is in history far longer. */
const TASK_TTL_MS = 60 * 60 * 1000;
/** How often a client is told to poll `tasks/get`. */
const POLL_INTERVAL_MS = 500;
/** How long `tasks/get` waits for a run to end before answering that it still works. */
const GET_WAIT_MS = 1;

type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** Whether a 2026-07-28 request declared the tasks extension. */
function declaresTasks(ctx: ServerContext): boolean {
  const extensions = declaredCapabilities(ctx).extensions;
  return typeof extensions === "object" && extensions !== null && TASKS_EXTENSION in extensions;
}

/** The task methods refuse a request that did not declare the extension (-32021). */
function requireTasks(ctx: ServerContext): void {
  if (!declaresTasks(ctx)) {
    throw new MissingRequiredClientCapabilityError({
      requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
    });
  }
}

/** When a run started: its id begins with its start time (base 36 ms, see newRunId). */
function startedAt(runId: string): number {
  const ms = parseInt(runId.slice(0, 9), 36);
  return Number.isFinite(ms) && ms > 0 ? ms : Date.now();
}

function taskFields(runId: string, status: TaskStatus, updated: number) {
  return {
    taskId: runId,
    status,
    createdAt: new Date(startedAt(runId)).toISOString(),
    lastUpdatedAt: new Date(updated).toISOString(),
    ttlMs: TASK_TTL_MS,
    pollIntervalMs: POLL_INTERVAL_MS,
  };
}

/** A finished run as a task: cancelled, or completed with its tool result (isError when failed). */
function finishedTask(doc: RunDocument): Record<string, unknown> {
  const ended = startedAt(doc.runId) + doc.durationMs;
  if (doc.error?.kind === "Cancelled") {
    return { ...taskFields(doc.runId, "cancelled", ended), statusMessage: doc.error.message };
  }
  return {
    ...taskFields(doc.runId, "completed", ended),
    result: adaptToolResult(runToToolResult(doc), "2026-07-28"),
  };
}

/** The run's state as a task, asking (when the client can elicit) about its held calls. */
async function taskOf(
  call: GatewayCall,
  runId: string,
  canElicit: boolean,
): Promise<Record<string, unknown>> {
  let answer: unknown;
  try {
    answer = await call("wait", { runId, timeoutMs: GET_WAIT_MS });
  } catch (error) {
    if (error instanceof RpcError && error.code === RpcCode.InvalidParams) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown task "${runId}"`, {
        taskId: runId,
      });
    }
    throw error;
  }
  if (isRunDocument(answer)) return finishedTask(answer);
  const running = answer as RunningDocument;
  const { pending } = await call("approval.list", {}) as { pending: PendingApproval[] };
  const held = pending.filter((p) => p.runId === runId);
  if (held.length > 0) {
    if (canElicit) {
      return {
        ...taskFields(runId, "input_required", Date.now()),
        inputRequests: heldInputRequests(held),
      };
    }
    return {
      ...taskFields(runId, "working", Date.now()),
      statusMessage: `waiting for approval: ${
        heldCallText(held[0]!)
      }: answer with gateway approve ${runId}`,
    };
  }
  const lastLine = running.stdout.trimEnd().split("\n").at(-1);
  return {
    ...taskFields(runId, "working", Date.now()),
    ...(lastLine ? { statusMessage: lastLine } : {}),
  };
}

const taskIdParams = z.looseObject({ taskId: z.string().min(1) });

/**
 * Registers `tasks/get`, `tasks/update` and `tasks/cancel` (2026-07-28 code mode) and answers
 * which `tools/call` starts a task.
 */
export function registerTaskMethods(parts: McpServerParts, surface: CodeSurface): TaskStarter {
  const { call, session } = parts;
  const server = session.server;
  const guarded = <T>(ctx: ServerContext, work: () => Promise<T>): Promise<T> => {
    requireTasks(ctx);
    return work().catch((error) => {
      throw toMcpError(error);
    });
  };
  server.setRequestHandler("tasks/get", { params: taskIdParams }, (params, ctx) =>
    guarded(
      ctx,
      () => taskOf(call, params.taskId, "elicitation" in declaredCapabilities(ctx)),
    ));
  server.setRequestHandler(
    "tasks/update",
    { params: taskIdParams },
    (_params, ctx) =>
      guarded(ctx, async () => {
        // The SDK lifts `inputResponses` out of the params into the request's context.
        const responses = (ctx.mcpReq.inputResponses ?? {}) as InputResponses;
        await answerHeld(call, Object.keys(responses), responses);
        return {};
      }),
  );
  server.setRequestHandler(
    "tasks/cancel",
    { params: taskIdParams },
    (params, ctx) =>
      guarded(ctx, async () => {
        try {
          await call("cancel", { runId: params.taskId });
        } catch (error) {
          if (!(error instanceof RpcError)) throw error;
          // Already ended: cancelling it again is the same acknowledgement. Still going: it runs
          // on another instance, which alone can stop its process.
          const task = await taskOf(call, params.taskId, false);
          if (task.status === "working" || task.status === "input_required") {
            throw new ProtocolError(
              ProtocolErrorCode.InvalidRequest,
              `Task "${params.taskId}" runs on another gateway instance, which alone can cancel it: send tasks/cancel there`,
              { taskId: params.taskId },
            );
          }
        }
        return {};
      }),
  );
  return {
    start(tool, args, ctx) {
      const method = TASK_TOOLS[tool];
      if (method === undefined || !declaresTasks(ctx)) return undefined;
      return startTask(call, surface, tool, method, args);
    },
  };
}

/** Starts the run and answers its task (or, when it already ended, its result). */
async function startTask(
  call: GatewayCall,
  surface: CodeSurface,
  tool: string,
  method: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown> | InputRequiredResult> {
  const parsed = surface.tools[tool]!.parse(args);
  if (!parsed.ok) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Invalid arguments for tool "${tool}": ${parsed.problem}`,
    );
  }
  let answer: unknown;
  try {
    answer = await call(method, { ...parsed.value, client: "mcp", yieldAfterMs: 1 });
  } catch (error) {
    throw toMcpError(error);
  }
  if (isRunDocument(answer)) return adaptToolResult(runToToolResult(answer), "2026-07-28");
  const { runId } = answer as RunningDocument;
  return { resultType: "task", ...taskFields(runId, "working", Date.now()) };
}
