import assert from "node:assert/strict";
import type { GatewayCall } from "./gateway_call.ts";
import { heldStateCodec } from "./gateway_mcp_server.ts";
import { createMcpHttpHandler } from "./mcp_http_handler.ts";

const gateway: GatewayCall = (method) =>
  method === "namespaces"
    ? Promise.resolve({ namespaces: [] })
    : Promise.reject(new Error(`unexpected ${method}`));

const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

async function post(
  handler: (request: Request) => Promise<Response>,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
  query = "",
): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const response = await handler(
    new Request(`http://127.0.0.1/mcp${query}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, ...body }),
    }),
  );
  const text = await response.text();
  const json = text.startsWith("{")
    ? JSON.parse(text)
    : JSON.parse(text.split("\n").find((l) => l.startsWith("data:"))!.slice(5));
  return { status: response.status, headers: response.headers, body: json };
}

Deno.test("/mcp answers a 2026-07-28 server/discover statelessly: code mode's capabilities (tasks, no logging) with cache hints", async () => {
  const handler = createMcpHttpHandler({
    call: gateway,
    version: "9.9.9",
    codec: await heldStateCodec("secret"),
  });
  try {
    const { status, headers, body } = await post(
      handler,
      { method: "server/discover", params: { _meta: MODERN_META } },
      { "mcp-protocol-version": "2026-07-28", "mcp-method": "server/discover" },
    );
    assert.equal(status, 200);
    assert.equal(headers.get("mcp-session-id"), null);
    const result = body.result as Record<string, unknown>;
    assert.deepEqual(result.supportedVersions, ["2026-07-28"]);
    const capabilities = result.capabilities as Record<string, unknown>;
    assert.ok(
      "extensions" in capabilities && !("logging" in capabilities),
      JSON.stringify(capabilities),
    );
    assert.equal(result.ttlMs, 300_000);
    assert.equal(result.cacheScope, "private");
    // A missing standard header is the client's mistake, answered -32020.
    const missing = await post(handler, { method: "tools/list", params: { _meta: MODERN_META } });
    assert.equal(missing.status, 400);
    assert.equal((missing.body.error as { code: number }).code, -32020);
  } finally {
    await handler.close();
  }
});

Deno.test("/mcp opens a 2025 session on initialize, with logging; an unknown exposure is a 400 naming the choices", async () => {
  const handler = createMcpHttpHandler({
    call: gateway,
    version: "9.9.9",
    codec: await heldStateCodec("secret"),
  });
  try {
    const opened = await post(handler, {
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    });
    assert.equal(opened.status, 200);
    assert.ok(opened.headers.get("mcp-session-id"));
    const result = opened.body.result as { protocolVersion: string; capabilities: object };
    assert.equal(result.protocolVersion, "2025-11-25");
    assert.ok("logging" in result.capabilities);

    const unknown = await post(handler, { method: "initialize", params: {} }, {}, "?expose=nope");
    assert.equal(unknown.status, 400);
    assert.match(
      (unknown.body.error as { message: string }).message,
      /Unknown exposure "nope": use code, tools, or a configured namespace \(none configured\)/,
    );
  } finally {
    await handler.close();
  }
});
