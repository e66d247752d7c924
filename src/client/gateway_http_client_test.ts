import assert from "node:assert/strict";
import { join } from "node:path";
import { RpcError } from "../protocol/json_rpc.ts";
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
