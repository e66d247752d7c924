/**
 * Parameter schemas of every RPC method, shared by the server (validation, with
 * the failing path in `-32602` errors) and the client (typing what it sends).
 * @module
 */

import { z } from "zod";
import { permissionSetSchema } from "../config/gateway_config.ts";

/** What every run request can carry besides its source or name. */
const runOptionsShape = {
  args: z.array(z.string()).default([]),
  stdin: z.string().optional(),
  cwd: z.string().optional(),
  permissions: permissionSetSchema.optional(),
  timeoutMs: z.number().int().positive().optional(),
  check: z.boolean().optional(),
  yieldAfterMs: z.number().int().nonnegative().optional(),
  maxOutputBytes: z.number().int().positive().optional(),
  maxMemoryMb: z.number().int().positive().optional(),
  maxToolCalls: z.number().int().positive().optional(),
  callTimeoutMs: z.number().int().positive().optional(),
  /** Who asked ("cli", "mcp", an agent's name); stored in history. */
  client: z.string().max(200).optional(),
  /** Ask for `run.output` notifications while the run goes on. */
  stream: z.boolean().optional(),
  /** Ask for `run.waiting` notifications: what the run waits for before it starts. */
  progress: z.boolean().optional(),
  /** W3C trace context of the caller: the run's span becomes its child (OpenTelemetry). */
  traceparent: z.string().regex(
    /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/,
    "a W3C traceparent: 00-<32 hex trace id>-<16 hex span id>-<2 hex flags>",
  ).optional(),
};

/** `exec`: run inline TypeScript. */
export const execParams = z.strictObject({ source: z.string(), ...runOptionsShape });
/** Validated `exec` params. */
export type ExecParams = z.infer<typeof execParams>;

/** `run`: run a named script from `ROOT/scripts`. */
export const runParams = z.strictObject({ name: z.string().min(1), ...runOptionsShape });
/** Validated `run` params. */
export type RunParams = z.infer<typeof runParams>;

/** `call`: one tool, directly. */
export const callParams = z.strictObject({
  namespace: z.string().min(1),
  tool: z.string().min(1),
  args: z.unknown().optional(),
});

/** `namespace.reconnect`: drop and reopen one MCP server's connection (after a login). */
export const reconnectParams = z.strictObject({ namespace: z.string().min(1) });

/** `types`: declarations for some or all namespaces. */
export const typesParams = z.strictObject({ namespaces: z.array(z.string()).optional() });

/**
 * `namespaces`: status and counts; with `settle`, answered once the namespaces still in their
 * first start have settled (bounded), so a listing right after a start is not all "starting".
 */
export const namespacesParams = z.strictObject({
  namespaces: z.array(z.string()).optional(),
  settle: z.boolean().optional(),
});

/**
 * `catalog`: the budgeted catalogue, with its `version`; with `since` (a version it answered
 * before), only what changed since.
 */
export const catalogParams = z.strictObject({
  budget: z.number().int().positive().optional(),
  since: z.string().min(1).optional(),
});

/** `search`: ranked tools and scripts. */
export const searchParams = z.strictObject({
  query: z.string(),
  namespace: z.string().optional(),
  limit: z.number().int().positive().max(200).optional(),
  offset: z.number().int().nonnegative().optional(),
});

/**
 * `describe`: one tool compactly (signature, input in full, output's top level), deeper with
 * `depth`, everything with `full`; or a script or namespace.
 */
export const describeParams = z.strictObject({
  path: z.string().min(1),
  depth: z.number().int().positive().max(20).optional(),
  full: z.boolean().optional(),
});

/** `history.list`. */
export const historyListParams = z.strictObject({
  limit: z.number().int().positive().max(1000).optional(),
  offset: z.number().int().nonnegative().optional(),
  failed: z.boolean().optional(),
});

/** `history.get`. */
export const historyGetParams = z.strictObject({ id: z.string().min(1) });

/** `cancel`: stop a run. */
export const cancelParams = z.strictObject({ runId: z.string().min(1) });

/** `wait`: the rest of a yielded run. */
export const waitParams = z.strictObject({
  runId: z.string().min(1),
  timeoutMs: z.number().int().positive().optional(),
});

/** `workflow.*`: one shape for all the workflow commands. */
export const workflowParams = z.strictObject({
  file: z.string().optional(),
  session: z.string().optional(),
  cwd: z.string().optional(),
  vars: z.record(z.string(), z.string()).optional(),
  endLoop: z.string().optional(),
  reason: z.string().optional(),
});

/** `approval.respond`: answer a held `ask` call. */
export const approvalParams = z.strictObject({
  runId: z.string().min(1),
  allow: z.boolean(),
  by: z.string().optional(),
});

/** Formats a zod error as `path: message` pairs for a `-32602` reply. */
export function describeZodError(error: z.ZodError): string {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      return `unknown param ${issue.keys.map((k) => `"${path ? `${path}.` : ""}${k}"`).join(", ")}`;
    }
    return `${path ? `"${path}"` : "params"}: ${issue.message}`;
  }).join("; ");
}
