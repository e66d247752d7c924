/**
 * The tools of the code-mode exposure: everything the CLI can do, for an agent that only speaks
 * MCP — run code (`exec`, `run_script`, `wait`, `cancel`), discover (`search`, `describe`,
 * `types`, `catalog`), read `history`, step `workflow_*`, and `invoke` one tool directly.
 * Each forwards to one gateway method, so MCP answers what RPC answers.
 * @module
 */

import { z } from "zod";
import { permissionSetSchema } from "../config/gateway_config.ts";
import type { ToolResultShape } from "./content_for_revision.ts";
import type { GatewayCall, NotificationSink } from "./gateway_call.ts";
import { runToToolResult } from "./run_tool_result.ts";

/** One tool of an exposure: its input schema and what it does. */
export interface ExposedTool {
  description: string;
  /** JSON Schema sent in `tools/list`. */
  inputSchema: Record<string, unknown>;
  /** Validates arguments; a failure is a JSON-RPC -32602 error naming the argument. */
  parse(args: unknown): { ok: true; value: Record<string, unknown> } | {
    ok: false;
    problem: string;
  };
  handle(args: Record<string, unknown>, sink: NotificationSink): Promise<ToolResultShape>;
  annotations?: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
}

const runOptions = {
  args: z.array(z.string()).optional().describe("Arguments, as `args` in the script"),
  stdin: z.string().optional().describe("Text the script reads with stdin()"),
  permissions: permissionSetSchema.optional().describe(
    "Extra Deno permissions (net, read, write, env, run …), never beyond the configured ceiling",
  ),
  timeoutMs: z.number().int().positive().optional().describe("Stop the run after this many ms"),
  check: z.boolean().optional().describe("Type-check before running (default true)"),
  yieldAfterMs: z.number().int().nonnegative().optional()
    .describe("Answer {status:'running', runId} after this many ms; then call wait"),
  maxToolCalls: z.number().int().positive().optional().describe("Lower the tool-call limit"),
  callTimeoutMs: z.number().int().positive().optional().describe("Lower the per-call timeout"),
};

function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      return `unknown argument ${
        issue.keys.map((k) => `"${path ? `${path}.` : ""}${k}"`).join(", ")
      }`;
    }
    return `${path ? `"${path}"` : "arguments"}: ${issue.message}`;
  }).join("; ");
}

function tool(
  description: string,
  input: z.ZodObject,
  handle: ExposedTool["handle"],
  annotations?: Record<string, unknown>,
): ExposedTool {
  const { $schema: _ignored, ...inputSchema } = z.toJSONSchema(input) as Record<string, unknown>;
  return {
    description,
    inputSchema,
    parse: (args) => {
      const parsed = input.safeParse(args ?? {});
      return parsed.success
        ? { ok: true, value: parsed.data as Record<string, unknown> }
        : { ok: false, problem: describeIssues(parsed.error) };
    },
    handle,
    ...(annotations ? { annotations } : {}),
  };
}

function textOf(value: unknown): ToolResultShape {
  const text = typeof value === "object" && value !== null && "text" in value &&
      typeof (value as { text: unknown }).text === "string"
    ? (value as { text: string }).text
    : JSON.stringify(value, null, 2);
  return {
    content: [{ type: "text", text }],
    ...(typeof value === "object" && value !== null && !Array.isArray(value)
      ? { structuredContent: value as Record<string, unknown> }
      : {}),
  };
}

const READ_ONLY = { readOnlyHint: true, openWorldHint: false };

/** Builds the code-mode tool table over `call`. */
export function codeModeTools(call: GatewayCall): Record<string, ExposedTool> {
  const run = (method: string) => async (args: Record<string, unknown>, sink: NotificationSink) =>
    runToToolResult(
      await call(method, { ...args, client: "mcp", stream: sink.wantsOutput() }, sink),
    );
  const workflow = (method: string) => async (args: Record<string, unknown>) =>
    textOf(await call(method, args));
  return {
    exec: tool(
      "Run TypeScript in a sandbox. Tools: `await tools.ns.tool(args)`. The last expression is the result; console.log is stdout. Same options as `gateway exec`.",
      z.strictObject({ source: z.string().describe("TypeScript source"), ...runOptions }),
      run("exec"),
    ),
    run_script: tool(
      "Run a named script from the gateway's scripts/ directory.",
      z.strictObject({ name: z.string().min(1), ...runOptions }),
      run("run"),
    ),
    wait: tool(
      "Wait for a run that answered {status:'running'} and return its result.",
      z.strictObject({
        runId: z.string().min(1),
        timeoutMs: z.number().int().positive().optional(),
      }),
      async (args) => runToToolResult(await call("wait", args)),
    ),
    cancel: tool(
      "Cancel a run that is still going (one that answered {status:'running'}).",
      z.strictObject({ runId: z.string().min(1) }),
      async (args) => textOf(await call("cancel", args)),
      { destructiveHint: true, idempotentHint: true, openWorldHint: false },
    ),
    search: tool(
      "Find tools and named scripts by words; answers paths usable in scripts, with `next` for paging.",
      z.strictObject({
        query: z.string(),
        namespace: z.string().optional(),
        limit: z.number().int().positive().optional(),
        offset: z.number().int().nonnegative().optional(),
      }),
      async (args) => textOf(await call("search", args)),
      READ_ONLY,
    ),
    describe: tool(
      "The TypeScript signature, docs and parameters of one tool or script (`ns.tool`).",
      z.strictObject({ path: z.string().min(1).describe("`ns.tool`, `tools.ns.tool` or `ns`") }),
      async (args) => textOf(await call("describe", args)),
      READ_ONLY,
    ),
    types: tool(
      "TypeScript declarations of some namespaces (or all script globals).",
      z.strictObject({ namespaces: z.array(z.string()).optional() }),
      async (args) => {
        const answer = await call("types", args) as { types: string };
        return { content: [{ type: "text", text: answer.types }] };
      },
      READ_ONLY,
    ),
    catalog: tool(
      "Every namespace with its tool count, then signatures within a token budget.",
      z.strictObject({ budget: z.number().int().positive().optional() }),
      async (args) => textOf(await call("catalog", args)),
      READ_ONLY,
    ),
    history: tool(
      "Past runs: `list` (newest first; `failed`, `kind`, `text` filter; `limit`/`offset` page) or `show` one by `id` with its source, output and tool calls.",
      z.strictObject({
        action: z.enum(["list", "show"]).default("list"),
        id: z.string().optional().describe("Run id, for show"),
        limit: z.number().int().positive().max(1000).optional(),
        offset: z.number().int().nonnegative().optional(),
        failed: z.boolean().optional(),
        kind: z.string().optional().describe("Only runs that failed with this error kind"),
        text: z.string().optional().describe("Only runs whose id, source or name contain this"),
      }),
      async (args) => {
        const { action, id, ...page } = args as {
          action: "list" | "show";
          id?: string;
          [key: string]: unknown;
        };
        if (action === "show") {
          if (!id) throw new ArgumentError('history: action "show" needs "id" (a run id)');
          return textOf(await call("history.get", { id }));
        }
        if (id) throw new ArgumentError('history: "id" goes with action "show", not "list"');
        const { failed, kind, text, ...paging } = page;
        if (kind === undefined && text === undefined) {
          return textOf(await call("history.list", { ...paging, ...(failed ? { failed } : {}) }));
        }
        return textOf(
          await call("history.search", {
            ...paging,
            ...(failed || kind ? { status: "failed" } : {}),
            ...(kind !== undefined ? { kind } : {}),
            ...(text !== undefined ? { text } : {}),
          }),
        );
      },
      READ_ONLY,
    ),
    workflow_start: tool(
      "Start a workflow (a name under workflows/ or a YAML path); answers the first step to do.",
      z.strictObject({
        file: z.string().min(1),
        session: z.string().optional(),
        vars: z.record(z.string(), z.string()).optional(),
      }),
      workflow("workflow.start"),
    ),
    workflow_step: tool(
      "Mark the current workflow step done and get the next one.",
      z.strictObject({
        session: z.string().optional(),
        endLoop: z.string().optional().describe("Leave the current loop with this reason"),
      }),
      workflow("workflow.step"),
    ),
    workflow_status: tool(
      "Where a workflow session is: current step, pass, and what remains.",
      z.strictObject({ session: z.string().optional() }),
      workflow("workflow.status"),
      READ_ONLY,
    ),
    invoke: tool(
      "Call one tool directly by path (`ns.tool` or `tools.ns.tool`), for hosts that cannot write code.",
      z.strictObject({
        path: z.string().min(1),
        args: z.record(z.string(), z.unknown()).optional(),
      }),
      async (args) => {
        const path = String(args.path);
        const [namespace, ...rest] = path.replace(/^tools\./, "").split(".");
        if (!namespace || rest.length === 0) {
          throw new ArgumentError(`invoke: path "${path}" must look like "ns.tool"`);
        }
        const answer = await call("call", {
          namespace,
          tool: rest.join("."),
          args: args.args ?? {},
        }) as { value: unknown };
        return typeof answer.value === "string"
          ? { content: [{ type: "text", text: answer.value }] }
          : textOf(answer.value);
      },
    ),
  };
}

/** A caller's mistake found while handling a tool: a JSON-RPC -32602 error. */
export class ArgumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ArgumentError";
  }
}
