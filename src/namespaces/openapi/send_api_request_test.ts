import assert from "node:assert/strict";
import { ToolCallError, type ToolCallOptions } from "../namespace.ts";
import type { ApiOperation } from "./api_operations.ts";
import { sendApiRequest } from "./send_api_request.ts";

interface Seen {
  method: string;
  url: string;
  contentType: string;
  body: string;
  headers: Headers;
}

/** A loopback server that records each request and answers with `answer`. */
function recordingServer(answer: (request: Request) => Response | Promise<Response>) {
  const seen: Seen[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      seen.push({
        method: request.method,
        url: request.url,
        contentType: request.headers.get("content-type") ?? "",
        body: await request.text(),
        headers: request.headers,
      });
      return answer(request);
    },
  );
  return { seen, url: `http://127.0.0.1:${server.addr.port}/v1`, stop: () => server.shutdown() };
}

function operation(overrides: Partial<ApiOperation>): ApiOperation {
  return {
    name: "op",
    method: "get",
    path: "/items",
    summary: "",
    description: "",
    tags: [],
    deprecated: false,
    parameters: [],
    body: undefined,
    response: {},
    security: [],
    ...overrides,
  };
}

function options(timeoutMs = 10_000, signal = new AbortController().signal): ToolCallOptions {
  return { signal, callTimeoutMs: timeoutMs, callMaxMs: 60_000 };
}

Deno.test("sendApiRequest() sends JSON, form and multipart bodies and header parameters", async () => {
  const server = recordingServer(() => Response.json({ ok: true }, { status: 201 }));
  try {
    const target = {
      namespace: "api",
      baseUrl: server.url,
      headers: { authorization: "Bearer s3cret" },
    };
    const header = {
      name: "X-Trace",
      key: "X-Trace",
      in: "header" as const,
      required: false,
      schema: {},
      description: "",
      style: "simple",
      explode: false,
    };
    const json = await sendApiRequest(
      target,
      operation({
        method: "post",
        parameters: [header],
        body: {
          key: "body",
          contentType: "application/json",
          schema: {},
          required: true,
          description: "",
        },
      }),
      { "X-Trace": "t1", body: { name: "a", n: 1 } },
      options(),
    );
    assert.deepEqual(json.value, { ok: true });
    assert.equal(json.raw.status, 201);
    await sendApiRequest(
      target,
      operation({
        method: "put",
        body: {
          key: "body",
          contentType: "application/x-www-form-urlencoded",
          schema: {},
          required: true,
          description: "",
        },
      }),
      { body: { name: "a b", tags: ["x", "y"] } },
      options(),
    );
    await sendApiRequest(
      target,
      operation({
        method: "post",
        body: {
          key: "body",
          contentType: "multipart/form-data",
          schema: {},
          required: true,
          description: "",
        },
      }),
      { body: { file: "hello", note: "n" } },
      options(),
    );
    const [first, second, third] = server.seen;
    assert.equal(first?.contentType, "application/json");
    assert.equal(first?.body, '{"name":"a","n":1}');
    assert.equal(first?.headers.get("x-trace"), "t1");
    assert.equal(first?.headers.get("authorization"), "Bearer s3cret");
    assert.equal(second?.contentType, "application/x-www-form-urlencoded");
    assert.equal(second?.body, "name=a+b&tags=x&tags=y");
    assert.match(third?.contentType ?? "", /^multipart\/form-data; boundary=/);
    assert.match(third?.body ?? "", /name="file"\r\n\r\nhello\r\n/);
  } finally {
    await server.stop();
  }
});

Deno.test("sendApiRequest() caps a long error body and answers null for an empty 204", async () => {
  const server = recordingServer((request) =>
    new URL(request.url).pathname.endsWith("/items")
      ? new Response("x".repeat(10_000), { status: 500, headers: { "content-type": "text/plain" } })
      : new Response(null, { status: 204 })
  );
  try {
    const target = { namespace: "api", baseUrl: server.url, headers: {} };
    const error = await sendApiRequest(target, operation({}), {}, options()).then(
      () => undefined,
      (e) => e as ToolCallError,
    );
    assert.ok(error instanceof ToolCallError);
    assert.equal(error.kind, "ToolError");
    assert.match(
      error.message,
      /^"api\.op" \(GET \/items\) answered 500 Internal Server Error: x{2000}… \(10000 characters\)$/,
    );
    const empty = await sendApiRequest(target, operation({ path: "/empty" }), {}, options());
    assert.equal(empty.value, null);
  } finally {
    await server.stop();
  }
});

Deno.test("sendApiRequest() turns problem details into the message", async () => {
  const server = recordingServer(() =>
    Response.json({ type: "about:blank", title: "Out of stock", detail: "Only 2 left" }, {
      status: 409,
      headers: { "content-type": "application/problem+json" },
    })
  );
  try {
    const error = await sendApiRequest(
      { namespace: "shop", baseUrl: server.url, headers: {} },
      operation({ name: "buy", method: "post" }),
      {},
      options(),
    ).then(() => undefined, (e) => e as ToolCallError);
    assert.match(
      error?.message ?? "",
      /"shop\.buy" \(POST \/items\) answered 409 Conflict: Out of stock: Only 2 left/,
    );
    assert.equal(error?.raw?.status, 409);
  } finally {
    await server.stop();
  }
});

Deno.test("sendApiRequest() times out a silent server with ToolTimeout", async () => {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const server = recordingServer(async () => {
    await held;
    return new Response("late");
  });
  try {
    const error = await sendApiRequest(
      { namespace: "api", baseUrl: server.url, headers: {} },
      operation({}),
      {},
      options(100),
    ).then(() => undefined, (e) => e as ToolCallError);
    assert.equal(error?.kind, "ToolTimeout");
    assert.match(error?.message ?? "", /timed out: no answer within 100 ms/);
  } finally {
    release();
    await server.stop();
  }
});

Deno.test("sendApiRequest() refuses an answer past the size cap instead of holding it", async () => {
  const chunk = new Uint8Array(1024 * 1024);
  const server = recordingServer(() => {
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 40) controller.enqueue(chunk);
        else controller.close();
      },
    });
    return new Response(body, { headers: { "content-type": "application/json" } });
  });
  try {
    const error = await sendApiRequest(
      { namespace: "api", baseUrl: server.url, headers: {} },
      operation({}),
      {},
      options(),
    ).then(() => undefined, (e) => e as ToolCallError);
    assert.equal(error?.kind, "ToolError");
    assert.match(error?.message ?? "", /answered more than 33554432 bytes: refused/);
  } finally {
    await server.stop();
  }
});
