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
  args: z.array(z.string()).optional(),
  stdin: z.string().optional(),
  permissions: permissionSetSchema.optional().describe("e.g. {net:[host],read:[path]}"),
  timeoutMs: z.number().int().positive().optional(),
  check: z.boolean().optional().describe("type-check first (default true)"),
  yieldAfterMs: z.number().int().nonnegative().optional().describe("then call wait"),
  maxToolCalls: z.number().int().positive().optional(),
  callTimeoutMs: z.number().int().positive().optional(),
};

/**
 * JSON Schema of an input as `tools/list` sends it: what zod writes, without the bounds every
 * integer gets (±2^53, > 0), `additionalProperties: false` and the per-key copies of the
 * permission set, which cost a model tokens and say little: arguments are still validated in
 * full by `parse` (an unknown or out-of-range one is refused, naming it) and by the gateway.
 */
function listedSchema(input: z.ZodObject): Record<string, unknown> {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(input, {
    override: ({ jsonSchema }) => {
      const json = jsonSchema as Record<string, unknown>;
      if (json.maximum === Number.MAX_SAFE_INTEGER) delete json.maximum;
      if (json.minimum === Number.MIN_SAFE_INTEGER || json.minimum === 0) delete json.minimum;
      if (json.exclusiveMinimum === 0) delete json.exclusiveMinimum;
      if (json.additionalProperties === false) delete json.additionalProperties;
      if (json.type === "object" && json.properties && "net" in (json.properties as object)) {
        delete json.properties;
        delete json.additionalProperties;
      }
    },
  }) as Record<string, unknown>;
  return schema;
}

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
  return {
    description,
    inputSchema: listedSchema(input),
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
      "Run TypeScript calling `await tools.ns.tool(args)`; the last expression is the result, console.log the stdout.",
      z.strictObject({ source: z.string(), ...runOptions }),
      run("exec"),
    ),
    run_script: tool(
      "Run a named script; options as exec.",
      z.strictObject({ name: z.string().min(1), ...runOptions }),
      run("run"),
    ),
    wait: tool(
      "Wait for a run that answered status running.",
      z.strictObject({
        runId: z.string().min(1),
        timeoutMs: z.number().int().positive().optional(),
      }),
      async (args) => runToToolResult(await call("wait", args)),
    ),
    cancel: tool(
      "Cancel a running run.",
      z.strictObject({ runId: z.string().min(1) }),
      async (args) => textOf(await call("cancel", args)),
      { destructiveHint: true, idempotentHint: true, openWorldHint: false },
    ),
    search: tool(
      "Find tools and scripts by words: one line each.",
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
      "A tool's signature, input type and output shape; depth or full for more.",
      z.strictObject({
        path: z.string().min(1).describe("ns.tool"),
        depth: z.number().int().positive().optional(),
        full: z.boolean().optional(),
      }),
      async (args) => textOf(await call("describe", args)),
      READ_ONLY,
    ),
    types: tool(
      "TypeScript declarations of namespaces (or ns.tool), standalone.",
      z.strictObject({ namespaces: z.array(z.string()).optional() }),
      async (args) => {
        const answer = await call("types", args) as { types: string };
        return { content: [{ type: "text", text: answer.types }] };
      },
      READ_ONLY,
    ),
    catalog: tool(
      "Namespaces and signatures within a token budget; since: a version, for changes only.",
      z.strictObject({
        budget: z.number().int().positive().optional(),
        since: z.string().optional(),
      }),
      async (args) => textOf(await call("catalog", args)),
      READ_ONLY,
    ),
    history: tool(
      "Past runs: list (filters failed, kind, text) or show one by id.",
      z.strictObject({
        action: z.enum(["list", "show"]).default("list"),
        id: z.string().optional(),
        limit: z.number().int().positive().max(1000).optional(),
        offset: z.number().int().nonnegative().optional(),
        failed: z.boolean().optional(),
        kind: z.string().optional(),
        text: z.string().optional(),
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
      "Start a workflow (name or YAML path); answers its first step.",
      z.strictObject({
        file: z.string().min(1),
        session: z.string().optional(),
        vars: z.record(z.string(), z.string()).optional(),
      }),
      workflow("workflow.start"),
    ),
    workflow_step: tool(
      "Finish the current workflow step; answers the next.",
      z.strictObject({
        session: z.string().optional(),
        endLoop: z.string().optional().describe("reason to leave the loop"),
      }),
      workflow("workflow.step"),
    ),
    workflow_status: tool(
      "A workflow session's current step.",
      z.strictObject({ session: z.string().optional() }),
      workflow("workflow.status"),
      READ_ONLY,
    ),
    invoke: tool(
      "Call one tool (ns.tool) without a script.",
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
