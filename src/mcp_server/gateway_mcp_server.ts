/**
 * The gateway as an MCP server (SPEC §11): tools (the code-mode set, or every upstream tool
 * with `expose: "tools"`), resources, prompts, completions and logging, each answered from
 * gateway methods through one {@linkcode GatewayCall}, so MCP answers what RPC answers.
 * Results are adapted to the client's negotiated protocol revision. A run's output reaches the
 * client as log messages (after `logging/setLevel`) and progress notifications (when the call
 * carries a progress token).
 * (Over 400 lines: one handler per MCP method, all over the one server object and its session.)
 * @module
 */

import type { PendingApproval } from "../protocol/wire_views.ts";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  GetPromptRequestSchema,
  InitializeRequestSchema,
  LATEST_PROTOCOL_VERSION,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { RpcCode, RpcError } from "../protocol/json_rpc.ts";
import { ErrorCode, McpError } from "../namespaces/mcp/v1_server_errors.ts";
import { adaptToolResult, type ToolResultShape } from "./content_for_revision.ts";
import { ArgumentError, codeModeTools, type ExposedTool } from "./code_mode_tools.ts";
import type { GatewayCall, GatewayEvents, NotificationSink } from "./gateway_call.ts";
import {
  listResources,
  listTemplates,
  namespacedUri,
  readResource,
  splitNamespacedUri,
  UnknownResourceError,
} from "./mcp_resources.ts";
import {
  complete,
  type CompletionRef,
  getPrompt,
  listPrompts,
  UnknownPromptError,
} from "./mcp_prompts.ts";
import { callProxyTool, listProxyTools, type ProxyTool } from "./proxy_tools.ts";
import { messageOf } from "../protocol/message_of.ts";

/** How long after a call's last notification its answer may follow (see `settle`). */
const NOTIFICATION_LEAD_MS = 5;

export { type GatewayCall, type GatewayEvents } from "./gateway_call.ts";
export { runToToolResult } from "./run_tool_result.ts";

/** Which tools the server lists: code mode (default) or every upstream tool directly. */
export type McpExposure = "code" | "tools";

/** MCP log levels, least severe first. */
const LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

/** `resources/read` of an unknown URI (the code the MCP spec gives for it). */
const RESOURCE_NOT_FOUND = -32002;

/** Extra the SDK hands a request handler (the parts used here). */
interface HandlerExtra {
  signal: AbortSignal;
  sendNotification(notification: { method: string; params: Record<string, unknown> }): Promise<
    void
  >;
}

/** What a handler knows about the request it answers. */
interface ToolCallRequest {
  params: {
    name: string;
    arguments?: Record<string, unknown>;
    _meta?: { progressToken?: string | number };
  };
}

/** Turns an error from a gateway call into the JSON-RPC error the MCP client gets. */
function toMcpError(error: unknown): Error {
  if (error instanceof McpError) return error;
  if (error instanceof ArgumentError || error instanceof UnknownPromptError) {
    return new McpError(ErrorCode.InvalidParams, error.message);
  }
  if (error instanceof UnknownResourceError) {
    return new McpError(RESOURCE_NOT_FOUND, error.message);
  }
  if (error instanceof RpcError) {
    return new McpError(
      error.code === RpcCode.InvalidParams ? ErrorCode.InvalidParams : error.code,
      error.message,
      error.data,
    );
  }
  return new McpError(
    ErrorCode.InternalError,
    `Internal error: ${messageOf(error)}`,
  );
}

/**
 * A gateway-level failure of a tool (refused permission, unknown namespace, a workflow state):
 * an `isError` result starting `error[Kind]`, which the model can read and act on.
 */
function gatewayErrorResult(error: RpcError): ToolResultShape {
  const kind = typeof error.data?.kind === "string" ? error.data.kind : "GatewayError";
  return {
    content: [{ type: "text", text: `error[${kind}]: ${error.message}` }],
    structuredContent: { error: { kind, message: error.message, ...(error.data ?? {}) } },
    isError: true,
  };
}

/**
 * Asks the MCP host about a held call: through elicitation when the host supports it (accept
 * with allow=true allows, decline denies, cancel leaves it held), otherwise with a log
 * notification naming the `gateway approve` command (issue 13).
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

/** Builds the MCP server over `call`. One server serves one client session. */
export function createGatewayMcpServer(
  options: {
    call: GatewayCall;
    version: string;
    expose?: McpExposure;
    events?: GatewayEvents;
    /** Told when the host could not be asked about a held call. */
    onError?: (message: string) => void;
  },
): Server {
  const { call } = options;
  const expose = options.expose ?? "code";
  const codeTools = expose === "code" ? codeModeTools(call) : {};
  let proxyTools: ProxyTool[] = [];
  let revision: string = LATEST_PROTOCOL_VERSION;
  let logLevel: string | null = null;
  const subscriptions = new Set<string>();

  const server = new Server(
    { name: "gateway", version: options.version },
    {
      capabilities: {
        tools: { listChanged: expose === "tools" && options.events !== undefined },
        resources: { subscribe: true, listChanged: options.events !== undefined },
        prompts: { listChanged: options.events !== undefined },
        completions: {},
        logging: {},
      },
      instructions: expose === "code"
        ? "Write TypeScript that calls tools as `await tools.<namespace>.<tool>(args)` and run it with `exec`. " +
          "Find tools with `search` and `describe`, read their types with `types` or the gateway://types/NS resources. " +
          "Only the script's output comes back. The gateway://guide resource explains the rest."
        : "Every upstream tool is listed as <namespace>__<tool>; calls go through the gateway's policy and limits.",
    },
  );

  // Keeps the SDK's own handshake and records the revision it negotiated.
  const sdk = server as unknown as {
    _oninitialize(request: unknown): Promise<{ protocolVersion: string }>;
  };
  server.setRequestHandler(InitializeRequestSchema, async (request: unknown) => {
    const answer = await sdk._oninitialize(request);
    revision = answer.protocolVersion;
    return answer;
  });

  // Once initialized, upstream changes reach the client as list-changed notifications, and a
  // subscribed upstream resource's change as notifications/resources/updated.
  let unsubscribe: (() => void) | undefined;
  server.oninitialized = () => {
    unsubscribe ??= options.events?.((method, params) => {
      const ignore = () => undefined;
      if (method === "event.namespaces") {
        if (expose === "tools") server.sendToolListChanged().catch(ignore);
        server.sendResourceListChanged().catch(ignore);
        server.sendPromptListChanged().catch(ignore);
      } else if (method === "event.upstream.log" && expose === "tools") {
        // The proxy stands in for its upstreams: their log messages reach the client, filtered
        // by the level it set and named by namespace.
        const { namespace, level, logger, data } = params as {
          namespace: string;
          level: string;
          logger?: string;
          data: unknown;
        };
        if (logLevel !== null && LEVELS.indexOf(level) >= LEVELS.indexOf(logLevel)) {
          server.sendLoggingMessage({
            level,
            logger: logger ? `${namespace}/${logger}` : namespace,
            data,
          }).catch(ignore);
        }
      } else if (method === "event.resource.updated") {
        const { namespace, uri } = params as { namespace: string; uri: string };
        const namespaced = namespacedUri(namespace, uri);
        if (subscriptions.has(namespaced)) {
          server.sendResourceUpdated({ uri: namespaced }).catch(ignore);
        }
      }
    });
  };
  server.onclose = () => unsubscribe?.();

  server.setRequestHandler(SetLevelRequestSchema, (request: { params: { level: string } }) => {
    logLevel = request.params.level;
    return {};
  });

  const asked = new Set<string>();
  const sinkFor = (
    request: ToolCallRequest,
    extra: HandlerExtra,
  ): NotificationSink & { settle(): Promise<void> } => {
    const progressToken = request.params._meta?.progressToken;
    let progress = 0;
    /** When this call last sent a notification (performance.now()). */
    let lastSent = -Infinity;
    const log = (level: string, logger: string, data: unknown) => {
      if (logLevel === null || LEVELS.indexOf(level) < LEVELS.indexOf(logLevel)) return;
      lastSent = performance.now();
      extra.sendNotification({ method: "notifications/message", params: { level, logger, data } })
        .catch(() => undefined);
    };
    const advance = (message: string, total?: number, value?: number) => {
      if (progressToken === undefined) return;
      lastSent = performance.now();
      progress = Math.max(progress + 1, value ?? 0);
      extra.sendNotification({
        method: "notifications/progress",
        params: {
          progressToken,
          progress,
          ...(total !== undefined ? { total } : {}),
          message: message.length > 500 ? `${message.slice(0, 500)}…` : message,
        },
      }).catch(() => undefined);
    };
    return {
      signal: extra.signal,
      // The MCP SDK's client runs a notification's handler a microtask after reading it, a
      // response's at once: a progress notification read in the same chunk as its call's
      // response is dropped as late. A call answers a moment after its last notification.
      settle: () => {
        const wait = lastSent + NOTIFICATION_LEAD_MS - performance.now();
        return wait > 0 ? new Promise((resolve) => setTimeout(resolve, wait)) : Promise.resolve();
      },
      wantsOutput: () => progressToken !== undefined || logLevel !== null,
      notify: (method, params) => {
        const p = params as Record<string, unknown>;
        if (method === "run.approval") {
          const pending = params as PendingApproval;
          if (asked.has(pending.id)) return;
          asked.add(pending.id);
          askHost(server, call, pending).catch((error) =>
            // The host went away or refused: the call stays held until answered another way
            // (gateway approve, the dashboard) or its time runs out.
            options.onError?.(`cannot ask the MCP host about ${pending.id}: ${String(error)}`)
          );
        } else if (method === "run.output") {
          const stream = String(p.stream);
          log(stream === "stderr" ? "warning" : "info", `run.${stream}`, String(p.text));
          advance(`${stream}: ${String(p.text).trimEnd()}`);
        } else if (
          method === "run.progress" || method === "upstream.progress" || method === "run.call"
        ) {
          const where = p.namespace ? `${String(p.namespace)}.${String(p.tool)}` : String(p.tool);
          const message = `${where}: ${
            p.message ?? `${p.progress}${p.total ? `/${p.total}` : ""}`
          }`;
          log("debug", "run.progress", message);
          advance(message);
        }
      },
    };
  };

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    if (expose === "tools") {
      proxyTools = await listProxyTools(call);
      return {
        tools: proxyTools.map((t) => ({
          name: t.exposedName,
          description: `[${t.namespace}] ${t.description}`.trim(),
          inputSchema: { type: "object", ...t.inputSchema },
          ...(t.outputSchema ? { outputSchema: t.outputSchema } : {}),
          ...(t.annotations ? { annotations: t.annotations } : {}),
        })),
      };
    }
    return {
      tools: Object.entries(codeTools).map(([name, tool]: [string, ExposedTool]) => ({
        name,
        description: tool.description,
        inputSchema: tool.inputSchema,
        ...(tool.annotations ? { annotations: tool.annotations } : {}),
      })),
    };
  });

  server.setRequestHandler(
    CallToolRequestSchema,
    async (request: ToolCallRequest, extra: HandlerExtra) => {
      const sink = sinkFor(request, extra);
      const { name } = request.params;
      let result: ToolResultShape;
      try {
        if (expose === "tools") {
          let target = proxyTools.find((t) => t.exposedName === name);
          if (!target) {
            proxyTools = await listProxyTools(call);
            target = proxyTools.find((t) => t.exposedName === name);
          }
          if (!target) {
            throw new McpError(
              ErrorCode.InvalidParams,
              `Unknown tool "${name}": tools/list shows the ${proxyTools.length} tools (<namespace>__<tool>)`,
            );
          }
          result = await callProxyTool(call, target, request.params.arguments ?? {}, sink);
        } else {
          const tool = codeTools[name];
          if (!tool) {
            throw new McpError(
              ErrorCode.InvalidParams,
              `Unknown tool "${name}" (tools: ${Object.keys(codeTools).join(", ")})`,
            );
          }
          const parsed = tool.parse(request.params.arguments ?? {});
          if (!parsed.ok) {
            throw new McpError(
              ErrorCode.InvalidParams,
              `Invalid arguments for tool "${name}": ${parsed.problem}`,
            );
          }
          result = await tool.handle(parsed.value, sink);
        }
      } catch (error) {
        if (error instanceof RpcError && error.code === RpcCode.GatewayError) {
          result = gatewayErrorResult(error);
        } else throw toMcpError(error);
      }
      await sink.settle();
      return adaptToolResult(result, revision);
    },
  );

  const guard = <T>(work: () => Promise<T>): Promise<T> =>
    work().catch((error) => {
      throw toMcpError(error);
    });

  server.setRequestHandler(
    ListResourcesRequestSchema,
    () => guard(async () => ({ resources: await listResources(call) })),
  );
  server.setRequestHandler(
    ListResourceTemplatesRequestSchema,
    () => guard(async () => ({ resourceTemplates: await listTemplates(call) })),
  );
  server.setRequestHandler(
    ReadResourceRequestSchema,
    (request: { params: { uri: string } }) =>
      guard(async () => ({ contents: await readResource(call, request.params.uri) })),
  );
  const subscription =
    (method: "resources/subscribe" | "resources/unsubscribe") =>
    (request: { params: { uri: string } }) =>
      guard(async () => {
        const { uri } = request.params;
        const upstream = splitNamespacedUri(uri);
        if (upstream) {
          await call("upstream.request", {
            namespace: upstream.namespace,
            method,
            params: { uri: upstream.uri },
          });
        }
        if (method === "resources/subscribe") subscriptions.add(uri);
        else subscriptions.delete(uri);
        return {};
      });
  server.setRequestHandler(SubscribeRequestSchema, subscription("resources/subscribe"));
  server.setRequestHandler(UnsubscribeRequestSchema, subscription("resources/unsubscribe"));

  server.setRequestHandler(
    ListPromptsRequestSchema,
    () => guard(async () => ({ prompts: await listPrompts(call) })),
  );
  server.setRequestHandler(
    GetPromptRequestSchema,
    (request: { params: { name: string; arguments?: Record<string, string> } }) =>
      guard(() => getPrompt(call, request.params.name, request.params.arguments ?? {})),
  );
  server.setRequestHandler(
    CompleteRequestSchema,
    (request: {
      params: {
        ref: CompletionRef;
        argument: { name: string; value: string };
        context?: { arguments?: Record<string, string> };
      };
    }) =>
      guard(async () => ({
        completion: await complete(
          call,
          request.params.ref,
          request.params.argument,
          request.params.context?.arguments ?? {},
        ),
      })),
  );
  return server;
}

/** Every protocol revision the server negotiates (the SDK's list). */
export const NEGOTIATED_REVISIONS: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS;
