import assert from "node:assert/strict";
import { join } from "node:path";
import { RpcError } from "../protocol/json_rpc.ts";
import { InMemoryTransport } from "../protocol/in_memory_transport.ts";
import { MessagePeer } from "../protocol/message_peer.ts";
import {
  assertOwnSocket,
  ForeignSocketError,
  GatewayHttpClient,
  UnreachableError,
} from "./gateway_http_client.ts";

/** A server on a unix socket answering `/rpc` in JSON lines, as the gateway does. */
async function withSocketServer(
  handler: (request: Request) => Response | Promise<Response>,
  fn: (path: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "http-client-" });
  const path = join(dir, "s.sock");
  const server = Deno.serve({ path, onListen: () => {} }, handler);
  try {
    await fn(path);
  } finally {
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
}

function lines(...messages: unknown[]): Response {
  const encoder = new TextEncoder();
  return new Response(
    new ReadableStream({
      start(controller) {
        for (const m of messages) controller.enqueue(encoder.encode(`${JSON.stringify(m)}\n`));
        controller.close();
      },
    }),
    { headers: { "content-type": "application/x-ndjson" } },
  );
}

Deno.test("GatewayHttpClient: a request's notifications arrive before its result, whatever the answer's size", async () => {
  await withSocketServer(async (request) => {
    const { id, method, params } = await request.json();
    assert.equal(method, "echo");
    assert.equal(request.headers.get("authorization"), null); // the socket needs no token
    return lines(
      { jsonrpc: "2.0", method: "run.output", params: { text: "a" } },
      { jsonrpc: "2.0", id, result: params },
    );
  }, async (path) => {
    const client = new GatewayHttpClient({ transport: "unix", path });
    const seen: string[] = [];
    client.onNotification((n) => seen.push(n.method));
    for (const size of [0, 10, 70_000, 3_000_000]) {
      const value = "é".repeat(size);
      assert.deepEqual(await client.request("echo", { value }), { value });
    }
    assert.deepEqual(seen, ["run.output", "run.output", "run.output", "run.output"]);
    await client.close();
  });
});

Deno.test("GatewayHttpClient: an error line rejects with RpcError; an HTTP refusal with its message", async () => {
  await withSocketServer(async (request) => {
    const { id, method } = await request.json();
    if (method === "bad") {
      return lines({ jsonrpc: "2.0", id, error: { code: -32602, message: "Invalid params" } });
    }
    return Response.json({ error: { message: "Unauthorized: wrong token" } }, { status: 401 });
  }, async (path) => {
    const client = new GatewayHttpClient({ transport: "unix", path });
    await assert.rejects(
      client.request("bad"),
      (e: Error) => e instanceof RpcError && e.code === -32602,
    );
    await assert.rejects(
      client.request("x"),
      /The gateway answered 401: Unauthorized: wrong token/,
    );
    await client.close();
  });
});

Deno.test("GatewayHttpClient: with nobody listening it rejects with UnreachableError and never asks for its params", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const client = new GatewayHttpClient({ transport: "unix", path: join(dir, "none.sock") });
    let asked = false;
    await assert.rejects(
      client.request("exec", () => {
        asked = true;
        return Promise.resolve({});
      }),
      UnreachableError,
    );
    assert.equal(asked, false);
    await client.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("GatewayHttpClient: a stream left open (a subscription) carries notifications until the client closes", async () => {
  const cancelled = Promise.withResolvers<void>();
  await withSocketServer(async (request) => {
    const { id } = await request.json();
    const encoder = new TextEncoder();
    let timer: ReturnType<typeof setInterval> | undefined;
    return new Response(
      new ReadableStream({
        start(controller) {
          controller.enqueue(
            encoder.encode(
              `${JSON.stringify({ jsonrpc: "2.0", id, result: { subscribed: true } })}\n`,
            ),
          );
          let n = 0;
          timer = setInterval(() => {
            controller.enqueue(
              encoder.encode(
                `${JSON.stringify({ jsonrpc: "2.0", method: "event.tick", params: n++ })}\n`,
              ),
            );
          }, 10);
        },
        cancel() {
          clearInterval(timer);
          cancelled.resolve();
        },
      }),
    );
  }, async (path) => {
    const client = new GatewayHttpClient({ transport: "unix", path });
    const ticks: unknown[] = [];
    const three = Promise.withResolvers<void>();
    client.onNotification((n) => {
      ticks.push(n.params);
      if (ticks.length === 3) three.resolve();
    });
    assert.deepEqual(await client.request("events.subscribe"), { subscribed: true });
    await three.promise;
    await client.close();
    await cancelled.promise; // the server saw the stream end
    assert.deepEqual(ticks.slice(0, 3), [0, 1, 2]);
  });
});

Deno.test("GatewayHttpClient.send(): a plain request's JSON answer and status", async () => {
  await withSocketServer(
    (request) => Response.json({ path: new URL(request.url).pathname, method: request.method }),
    async (path) => {
      const client = new GatewayHttpClient({ transport: "unix", path });
      assert.deepEqual(await client.send("POST", "/ui/code", { body: {} }), {
        status: 200,
        body: { path: "/ui/code", method: "POST" },
      });
      await client.close();
    },
  );
});

Deno.test("assertOwnSocket() refuses a file that is not a socket, and a socket of another user", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = join(dir, "plain");
    await Deno.writeTextFile(file, "");
    assert.throws(() => assertOwnSocket(file), ForeignSocketError);
    const path = join(dir, "s.sock");
    const listener = Deno.listen({ transport: "unix", path });
    try {
      assertOwnSocket(path);
      if (Deno.uid() === 0) {
        await Deno.chown(path, 65534, 65534);
        assert.throws(
          () => assertOwnSocket(path),
          (e: Error) => e instanceof ForeignSocketError && /belongs to uid 65534/.test(e.message),
        );
      }
    } finally {
      listener.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/**
 * A client whose every request gets a wire of its own in memory, served by `serve` on the
 * other end as the server's `/rpc` serves one request.
 */
function memoryClient(serve: (server: MessagePeer) => void) {
  const servers: MessagePeer[] = [];
  const client = new GatewayHttpClient({ transport: "unix", path: "/nowhere" }, {
    wire: () => {
      const [clientEnd, serverEnd] = InMemoryTransport.pair();
      const server = new MessagePeer(serverEnd, { jsonRpc: true });
      servers.push(server);
      serve(server);
      return Promise.resolve(clientEnd);
    },
  });
  return { client, servers };
}

Deno.test("GatewayHttpClient over memory: notifications reach the listeners before the result", async () => {
  const { client } = memoryClient((server) => {
    server.handle("exec", (params) => {
      server.notify("run.output", { text: "hello" });
      return { echoed: params };
    });
  });
  const seen: unknown[] = [];
  client.onNotification((n) => seen.push(n));
  const result = await client.request("exec", { source: "1" });
  assert.deepEqual(seen, [{ method: "run.output", params: { text: "hello" } }]);
  assert.deepEqual(result, { echoed: { source: "1" } });
  await client.close();
});

Deno.test("GatewayHttpClient over memory: an error answer rejects with its RpcError, code, message and data", async () => {
  const { client } = memoryClient((server) => {
    server.handle("tools.call", () => {
      throw new RpcError(-32000, 'Unknown tool "kv.gett"', { kind: "UnknownTool" });
    });
  });
  await assert.rejects(client.request("tools.call"), (error: unknown) => {
    assert.ok(error instanceof RpcError);
    assert.equal(error.code, -32000);
    assert.equal(error.message, 'Unknown tool "kv.gett"');
    assert.deepEqual(error.data, { kind: "UnknownTool" });
    return true;
  });
  await client.close();
});

Deno.test("GatewayHttpClient over memory: close() rejects what waits and the server sees its request cancelled", async () => {
  const cancelled = Promise.withResolvers<void>();
  const { client } = memoryClient((server) => {
    server.serve("events.subscribe", (_params, request) => {
      request.signal.addEventListener("abort", () => cancelled.resolve());
    });
  });
  const waiting = client.request("events.subscribe");
  await new Promise((resolve) => setTimeout(resolve, 0));
  await client.close();
  await assert.rejects(waiting, /The connection to the gateway was closed/);
  await cancelled.promise;
  await assert.rejects(client.request("x"), /The connection to the gateway is closed/);
});

Deno.test("GatewayHttpClient over memory: a server gone before answering rejects, naming it", async () => {
  const { client } = memoryClient((server) => {
    server.serve("exec", () => server.close("the server stopped"));
  });
  await assert.rejects(
    client.request("exec"),
    /The gateway closed the connection before answering/,
  );
  await client.close();
});

Deno.test("GatewayHttpClient over memory: params given as a function are read once the wire is open", async () => {
  const order: string[] = [];
  const client = new GatewayHttpClient({ transport: "unix", path: "/nowhere" }, {
    wire: () => {
      order.push("wire");
      const [clientEnd, serverEnd] = InMemoryTransport.pair();
      new MessagePeer(serverEnd, { jsonRpc: true }).handle("exec", (params) => params);
      return Promise.resolve(clientEnd);
    },
  });
  const result = await client.request("exec", () => {
    order.push("params");
    return Promise.resolve({ stdin: "piped" });
  });
  assert.deepEqual(order, ["wire", "params"]);
  assert.deepEqual(result, { stdin: "piped" });
  await client.close();
});
