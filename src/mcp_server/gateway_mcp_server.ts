/**
 * The gateway as an MCP server (SPEC §11): tools `exec`, `run_script`, `search`, `types`,
 * `catalog`, `wait`, and `invoke` for hosts that cannot write code. Every tool forwards to a
 * gateway method, so MCP answers exactly what RPC answers.
 * @module
 */

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { describeZodError } from "../protocol/rpc_params.ts";
import { z } from "zod";
import type { RunDocument } from "../protocol/run_document.ts";
import type { PendingApproval } from "../protocol/wire_views.ts";

/**
 * Calls a gateway method (router in-process, or a client over the wire). `notify`, when the
 * transport can carry them, receives the server's notifications about that call's run
 * (`run.approval` for a call an `ask` rule holds).
 */
export type GatewayCall = (
  method: string,
  params: Record<string, unknown>,
  notify?: (method: string, params: unknown) => void,
) => Promise<unknown>;

/**
 * Asks the MCP host about a held call: through elicitation when the host supports it (accept
 * with allow=true allows, decline denies, cancel leaves it held), otherwise with a log
 * notification naming the `gateway approve` command. Each held call is asked about once.
 */
async function askHost(
  server: Server,
  call: GatewayCall,
  pending: PendingApproval,
): Promise<void> {
  const what =
    `${pending.namespace}.${pending.tool}(${pending.args}) is held by policy ${pending.rule}`;
  const command = `gateway approve ${pending.runId}`;
  if (server.getClientCapabilities()?.elicitation) {
    const answer = await server.elicitInput({
      message: `${what}. Allow it?`,
      requestedSchema: {
        type: "object",
        properties: {
          allow: {
            type: "boolean",
            title: "Allow",
            description: `Allow ${pending.namespace}.${pending.tool}`,
          },
        },
        required: ["allow"],
      },
    });
    if (answer.action !== "cancel") {
      await call("approval.respond", {
        runId: pending.id,
        allow: answer.action === "accept" && answer.content?.allow === true,
        by: "mcp:elicitation",
      });
      return;
    }
  }
  await server.sendLoggingMessage({
    level: "warning",
    logger: "gateway",
    data: `waiting for approval: ${what}: answer with ${command} (or ${command} --deny)`,
  });
}

function isRunDocument(value: unknown): value is RunDocument {
  return typeof value === "object" && value !== null && "runId" in value && "ok" in value;
}

/** Turns a run (or a yielded run) into MCP content: text, attachments, structured document. */
export function runToToolResult(value: unknown): CallToolResult {
  if (!isRunDocument(value)) {
    return {
      content: [{ type: "text", text: JSON.stringify(value, null, 2) }],
      structuredContent: value as Record<string, unknown>,
    };
  }
  const parts: string[] = [];
  if (value.stdout) parts.push(value.stdout.replace(/\n$/, ""));
  if (value.result !== undefined) {
    parts.push(
      typeof value.result === "string" ? value.result : JSON.stringify(value.result, null, 2),
    );
  }
  if (value.error) {
    const at = value.error.line !== undefined ? ` (line ${value.error.line})` : "";
    parts.push(`error[${value.error.kind}]: ${value.error.message}${at}`);
  }
  if (value.stderr) parts.push(`stderr:\n${value.stderr}`);
  for (const w of value.warnings) parts.push(`warning: ${w}`);
  const content: CallToolResult["content"] = [{
    type: "text",
    text: parts.join("\n") || "(no output)",
  }];
  for (const block of value.attachments) content.push(block as CallToolResult["content"][number]);
  return {
    content,
    structuredContent: value as unknown as Record<string, unknown>,
    ...(value.ok ? {} : { isError: true }),
  };
}

function textResult(value: unknown): CallToolResult {
  const text = typeof value === "object" && value !== null && "text" in value &&
      typeof (value as { text: unknown }).text === "string"
    ? (value as { text: string }).text
    : JSON.stringify(value, null, 2);
  return { content: [{ type: "text", text }] };
}

async function guarded(fn: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await fn();
  } catch (error) {
    return {
      content: [{
        type: "text",
        text: `error: ${error instanceof Error ? error.message : String(error)}`,
      }],
      isError: true,
    };
  }
}

/** One tool the gateway offers over MCP: its input schema and what it does. */
interface GatewayMcpTool {
  description: string;
  input: z.ZodObject;
  handle(args: Record<string, unknown>): Promise<CallToolResult>;
}

const runOptions = {
  args: z.array(z.string()).optional().describe("Arguments, as `args` in the script"),
  stdin: z.string().optional().describe("Text the script reads with stdin()"),
  timeoutMs: z.number().int().positive().optional().describe("Stop the run after this many ms"),
  yieldAfterMs: z.number().int().nonnegative().optional()
    .describe("Answer {status:'running', runId} after this many ms; then call wait"),
};

function gatewayTools(
  call: GatewayCall,
  notify: (method: string, params: unknown) => void,
): Record<string, GatewayMcpTool> {
  return {
    exec: {
      description:
        "Run TypeScript in a sandbox. Tools: `await tools.ns.tool(args)`. The last expression is the result; console.log is stdout.",
      input: z.strictObject({ source: z.string().describe("TypeScript source"), ...runOptions }),
      handle: async (args) =>
        runToToolResult(await call("exec", { ...args, client: "mcp" }, notify)),
    },
    run_script: {
      description: "Run a named script from the gateway's scripts/ directory.",
      input: z.strictObject({ name: z.string(), ...runOptions }),
      handle: async (args) =>
        runToToolResult(await call("run", { ...args, client: "mcp" }, notify)),
    },
    search: {
      description:
        "Find tools and named scripts by words; answers paths usable in scripts, with `next` for paging.",
      input: z.strictObject({
        query: z.string(),
        namespace: z.string().optional(),
        limit: z.number().int().positive().optional(),
        offset: z.number().int().nonnegative().optional(),
      }),
      handle: async (args) => textResult(await call("search", args)),
    },
    types: {
      description: "TypeScript declarations of some namespaces (or all script globals).",
      input: z.strictObject({ namespaces: z.array(z.string()).optional() }),
      handle: async (args) => {
        const answer = await call("types", args) as { types: string };
        return { content: [{ type: "text", text: answer.types }] };
      },
    },
    catalog: {
      description: "Every namespace with its tool count, then signatures within a token budget.",
      input: z.strictObject({ budget: z.number().int().positive().optional() }),
      handle: async (args) => textResult(await call("catalog", args)),
    },
    wait: {
      description: "Wait for a run that answered {status:'running'} and return its result.",
      input: z.strictObject({
        runId: z.string(),
        timeoutMs: z.number().int().positive().optional(),
      }),
      handle: async (args) => runToToolResult(await call("wait", args, notify)),
    },
    invoke: {
      description:
        "Call one tool directly by path (`ns.tool` or `tools.ns.tool`), for hosts that cannot write code.",
      input: z.strictObject({
        path: z.string(),
        args: z.record(z.string(), z.unknown()).optional(),
      }),
      handle: async (args) => {
        const path = String(args.path);
        const [namespace, ...tool] = path.replace(/^tools\./, "").split(".");
        if (!namespace || tool.length === 0) {
          throw new TypeError(`invoke: path "${path}" must look like "ns.tool"`);
        }
        const answer = await call("call", {
          namespace,
          tool: tool.join("."),
          args: args.args ?? {},
        }) as { value: unknown };
        return textResult(answer.value);
      },
    },
  };
}

/**
 * Builds an MCP server whose tools forward to `call`. Uses the SDK's low-level `Server`: its
 * `McpServer.registerTool` typing does not infer handler arguments with zod 4.6 here, and the
 * schemas below are converted to JSON Schema by zod itself.
 */
export function createGatewayMcpServer(
  options: { call: GatewayCall; version: string; onError?: (message: string) => void },
): Server {
  const server = new Server(
    { name: "gateway", version: options.version },
    {
      capabilities: { tools: {}, logging: {} },
      instructions:
        "Write TypeScript that calls tools as `await tools.<namespace>.<tool>(args)` and run it with `exec`. " +
        "Find tools with `search`, read their types with `types`. Only the script's output comes back.",
    },
  );
  const asked = new Set<string>();
  const tools = gatewayTools(options.call, (method, params) => {
    if (method !== "run.approval") return;
    const pending = params as PendingApproval;
    if (asked.has(pending.id)) return;
    asked.add(pending.id);
    askHost(server, options.call, pending).catch((error) =>
      // The host went away or refused the request; the call stays held until it is answered
      // another way (gateway approve, the dashboard) or its time runs out.
      options.onError?.(`cannot ask the MCP host about ${pending.id}: ${String(error)}`)
    );
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: Object.entries(tools).map(([name, tool]) => ({
      name,
      description: tool.description,
      inputSchema: z.toJSONSchema(tool.input) as { type: "object"; [key: string]: unknown },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, (request: CallToolRequest) => {
    const tool = tools[request.params.name];
    if (!tool) {
      return {
        content: [{
          type: "text",
          text: `Unknown tool "${request.params.name}" (tools: ${Object.keys(tools).join(", ")})`,
        }],
        isError: true,
      };
    }
    const parsed = tool.input.safeParse(request.params.arguments ?? {});
    if (!parsed.success) {
      return {
        content: [{
          type: "text",
          text: `Invalid arguments for "${request.params.name}": ${describeZodError(parsed.error)}`,
        }],
        isError: true,
      };
    }
    return guarded(() => tool.handle(parsed.data as Record<string, unknown>));
  });
  return server;
}
