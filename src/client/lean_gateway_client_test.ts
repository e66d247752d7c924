import assert from "node:assert/strict";
import { HandshakeError, LeanGatewayClient } from "./lean_gateway_client.ts";
import { RpcError } from "../protocol/json_rpc.ts";

const TOKEN = "t".repeat(64);

/**
 * A WebSocket JSON-RPC server on Deno's own WebSocket: `echo` answers its params (after a
 * `note` notification), `fail` answers an error, anything without the token is refused.
 */
function startServer(seen: string[] = []) {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    if (new URL(req.url).searchParams.get("token") !== TOKEN) {
      return new Response("no", { status: 401 });
    }
    const { socket, response } = Deno.upgradeWebSocket(req);
    socket.onmessage = (event) => {
      const message = JSON.parse(event.data);
      seen.push(message.method);
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

/** Runs `fn` against a TCP listener that accepts connections and never answers them. */
async function withSilentListener(fn: (port: number) => Promise<void>): Promise<void> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of listener) held.push(conn);
  })();
  try {
    await fn((listener.addr as Deno.NetAddr).port);
  } finally {
    listener.close();
    await accepting.catch(() => undefined);
    for (const conn of held) conn.close();
  }
}

Deno.test("LeanGatewayClient: a listener that never answers the upgrade is given up at the deadline", async () => {
  await withSilentListener(async (port) => {
    await assert.rejects(
      LeanGatewayClient.connect({
        host: "127.0.0.1",
        port,
        token: TOKEN,
        timeoutMs: 200,
      }),
      /no WebSocket upgrade within 200 ms/,
    );
  });
});

Deno.test("LeanGatewayClient.open(): the first request and those sent before the upgrade's answer are answered in order", async () => {
  const seen: string[] = [];
  const server = startServer(seen);
  try {
    const client = await LeanGatewayClient.open({
      host: "127.0.0.1",
      port: server.addr.port,
      token: TOKEN,
      first: { method: "echo", params: { n: 1 } },
    });
    try {
      // Both go out before the server has answered the upgrade.
      const second = client.request("echo", { n: 2 });
      await client.handshake;
      assert.deepEqual(await client.firstAnswer, { n: 1 });
      assert.deepEqual(await second, { n: 2 });
      assert.deepEqual(seen, ["echo", "echo"]);
    } finally {
      await client.close();
    }
  } finally {
    await server.shutdown();
  }
});

Deno.test("LeanGatewayClient.open(): a refused upgrade rejects the request sent behind it, which never ran", async () => {
  const seen: string[] = [];
  const server = startServer(seen);
  try {
    const client = await LeanGatewayClient.open({
      host: "127.0.0.1",
      port: server.addr.port,
      token: "wrong",
      first: { method: "echo", params: { n: 1 } },
    });
    const early = client.firstAnswer!.then(() => null, (e) => e);
    const refused = await client.handshake.then(() => null, (error) => error);
    assert.ok(refused instanceof HandshakeError, String(refused));
    assert.equal(refused.answered, true);
    assert.match(refused.message, /the upgrade was answered 401/);
    assert.ok(await early instanceof Error);
    assert.deepEqual(seen, []);
  } finally {
    await server.shutdown();
  }
});

Deno.test("LeanGatewayClient.open(): no answer by the deadline is a handshake error that may have been read", async () => {
  await withSilentListener(async (port) => {
    const client = await LeanGatewayClient.open({
      host: "127.0.0.1",
      port,
      token: TOKEN,
      timeoutMs: 100,
      first: { method: "echo", params: {} },
    });
    const early = client.firstAnswer!.then(() => null, (e) => e);
    const error = await client.handshake.then(() => null, (e) => e);
    assert.ok(error instanceof HandshakeError, String(error));
    assert.equal(error.answered, false);
    assert.match(String(await early), /no WebSocket upgrade within 100 ms/);
  });
});
