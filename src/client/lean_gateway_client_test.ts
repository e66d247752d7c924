import assert from "node:assert/strict";
import { acceptFor, base64, LeanGatewayClient, sha1 } from "./lean_gateway_client.ts";
import { RpcError } from "../protocol/json_rpc.ts";

const TOKEN = "t".repeat(64);

/**
 * A WebSocket JSON-RPC server on Deno's own WebSocket: `echo` answers its params (after a
 * `note` notification), `fail` answers an error, anything without the token is refused.
 */
function startServer() {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    if (new URL(req.url).searchParams.get("token") !== TOKEN) {
      return new Response("no", { status: 401 });
    }
    const { socket, response } = Deno.upgradeWebSocket(req);
    socket.onmessage = (event) => {
      const message = JSON.parse(event.data);
      if (message.method === "echo") {
        socket.send(JSON.stringify({ jsonrpc: "2.0", method: "note", params: { id: message.id } }));
        socket.send(JSON.stringify({ jsonrpc: "2.0", id: message.id, result: message.params }));
      } else {
        socket.send(JSON.stringify({
          jsonrpc: "2.0",
          id: message.id,
          error: { code: -32602, message: "bad params", data: { kind: "Usage" } },
        }));
      }
    };
    return response;
  });
  return server;
}

Deno.test("LeanGatewayClient: requests of every frame size are answered, notifications arrive first", async () => {
  const server = startServer();
  const client = await LeanGatewayClient.connect({
    host: "127.0.0.1",
    port: server.addr.port,
    token: TOKEN,
  });
  try {
    const notes: unknown[] = [];
    client.onNotification((n) => notes.push(n));
    // Under 126 bytes, a 16-bit length and a 64-bit length, each way; and non-ASCII text.
    for (const size of [3, 1_000, 200_000]) {
      const text = "é".repeat(size);
      assert.deepEqual(await client.request("echo", { text }), { text });
    }
    assert.equal(notes.length, 3);
    assert.deepEqual(notes[0], { method: "note", params: { id: 1 } });
    const answers = await Promise.all([1, 2, 3].map((n) => client.request("echo", { n })));
    assert.deepEqual(answers, [{ n: 1 }, { n: 2 }, { n: 3 }]);
    await assert.rejects(
      client.request("fail"),
      (error) => error instanceof RpcError && error.code === -32602 && error.data?.kind === "Usage",
    );
  } finally {
    await client.close();
    await server.shutdown();
  }
});

Deno.test("LeanGatewayClient: a refused upgrade rejects with the HTTP status, and a closed client refuses requests", async () => {
  const server = startServer();
  try {
    await assert.rejects(
      LeanGatewayClient.connect({ host: "127.0.0.1", port: server.addr.port, token: "wrong" }),
      /port \d+: the upgrade was answered 401/,
    );
    const client = await LeanGatewayClient.connect({
      host: "127.0.0.1",
      port: server.addr.port,
      token: TOKEN,
    });
    await client.close();
    await assert.rejects(client.request("echo", {}), /connection to the gateway is closed/);
  } finally {
    await server.shutdown();
  }
});

Deno.test("LeanGatewayClient: a listener that never answers the upgrade is given up at the deadline", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of listener) held.push(conn);
  })();
  try {
    await assert.rejects(
      LeanGatewayClient.connect({
        host: "127.0.0.1",
        port: (listener.addr as Deno.NetAddr).port,
        token: TOKEN,
        timeoutMs: 200,
      }),
      /no WebSocket upgrade within 200 ms/,
    );
  } finally {
    listener.close();
    await accepting.catch(() => undefined);
    for (const conn of held) conn.close();
  }
});

Deno.test("base64: matches btoa for every length and byte value", () => {
  for (let length = 0; length <= 40; length++) {
    const bytes = Uint8Array.from({ length }, (_, i) => (i * 97 + length * 31) & 0xff);
    assert.equal(base64(bytes), btoa(String.fromCharCode(...bytes)), `length ${length}`);
  }
  const all = Uint8Array.from({ length: 256 }, (_, i) => i);
  assert.equal(base64(all), btoa(String.fromCharCode(...all)));
});

Deno.test("sha1: matches WebCrypto across block boundaries, and the RFC 6455 example", async () => {
  for (const length of [0, 1, 3, 55, 56, 60, 63, 64, 65, 119, 120, 200]) {
    const bytes = Uint8Array.from({ length }, (_, i) => (i * 131 + 7) & 0xff);
    const expected = new Uint8Array(await crypto.subtle.digest("SHA-1", bytes));
    assert.deepEqual(sha1(bytes), expected, `length ${length}`);
  }
  // RFC 6455 §1.3: the key "dGhlIHNhbXBsZSBub25jZQ==" is answered "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=".
  assert.equal(acceptFor("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
});
