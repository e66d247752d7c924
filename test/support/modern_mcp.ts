/**
 * Raw 2026-07-28 MCP requests over HTTP, as a client that speaks the revision sends them: the
 * `_meta` envelope on every request and the standard headers (`MCP-Protocol-Version`,
 * `Mcp-Method`, `Mcp-Name`). For tests of what no SDK client exposes (the tasks extension's
 * wire, input-required results before any client fulfils them).
 * @module
 */

/** The revision these requests speak. */
export const MODERN = "2026-07-28";
/** The tasks extension's identifier. */
export const TASKS = "io.modelcontextprotocol/tasks";

/** A JSON-RPC answer with its HTTP status. */
export interface ModernAnswer {
  status: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: Record<string, unknown> };
}

/** Which body field a method's `Mcp-Name` header mirrors. */
const NAME_FIELD: Record<string, string> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
  "tasks/get": "taskId",
  "tasks/update": "taskId",
  "tasks/cancel": "taskId",
};

let nextId = 1;

/**
 * Sends one 2026-07-28 request to `url` with `token`, declaring `capabilities`, and reads its
 * answer (a JSON body, or the response in an SSE stream).
 */
export async function modernRequest(
  url: string,
  token: string,
  method: string,
  params: Record<string, unknown>,
  capabilities: Record<string, unknown> = {},
): Promise<ModernAnswer> {
  const id = nextId++;
  const field = NAME_FIELD[method];
  const name = field === undefined ? undefined : params[field];
  const response = await fetch(url, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN,
      "mcp-method": method,
      ...(typeof name === "string" ? { "mcp-name": name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN,
          "io.modelcontextprotocol/clientInfo": { name: "test", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": capabilities,
        },
      },
    }),
  });
  const text = await response.text();
  const messages = (response.headers.get("content-type") ?? "").includes("text/event-stream")
    ? text.split("\n").filter((l) => l.startsWith("data:")).map((l) => JSON.parse(l.slice(5)))
    : [JSON.parse(text)];
  const answer = messages.find((m) => m.id === id);
  if (!answer) throw new Error(`no answer to ${method} (HTTP ${response.status}): ${text}`);
  return { status: response.status, result: answer.result, error: answer.error };
}

/** The text blocks of a tool result, joined. */
export function resultText(result: Record<string, unknown> | undefined): string {
  const content = (result?.content ?? []) as Array<{ type: string; text?: string }>;
  return content.filter((b) => b.type === "text").map((b) => b.text).join("\n");
}
