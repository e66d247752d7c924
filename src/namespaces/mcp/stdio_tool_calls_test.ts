import assert from "node:assert/strict";
import { StdioToolCalls } from "./stdio_tool_calls.ts";
import { type JSONRPCMessage, ProtocolError, SdkError, SdkErrorCode } from "./mcp_sdk.ts";

/** A `StdioToolCalls` whose sent messages are kept, and call options with long timeouts. */
function setup() {
  const sent: Record<string, unknown>[] = [];
  const calls = new StdioToolCalls((message: JSONRPCMessage) => {
    sent.push(message as Record<string, unknown>);
  });
  const options = (overrides: Record<string, unknown> = {}) => ({
    signal: new AbortController().signal,
    timeout: 60_000,
    maxTotalTimeout: 600_000,
    ...overrides,
  });
  return { sent, calls, options };
}

Deno.test("`StdioToolCalls.call()` sends tools/call with its own id and resolves with a text answer", async () => {
  const { sent, calls, options } = setup();
  const answer = calls.call("echo", { message: "hi" }, options());
  assert.deepStrictEqual(sent, [{
    jsonrpc: "2.0",
    id: "gw-1",
    method: "tools/call",
    params: { name: "echo", arguments: { message: "hi" } },
  }]);
  const result = { content: [{ type: "text", text: "Echo: hi" }] };
  assert.equal(calls.take({ jsonrpc: "2.0", id: "gw-1", result }), true);
  assert.deepStrictEqual(await answer, result);
});

Deno.test("`StdioToolCalls.take()` leaves every other message to the SDK", () => {
  const { calls } = setup();
  assert.equal(calls.take({ jsonrpc: "2.0", id: 1, result: {} }), false);
  assert.equal(calls.take({ jsonrpc: "2.0", id: "other-1", result: {} }), false);
  // An id of ours that was never sent is the SDK's to report as unknown.
  assert.equal(calls.take({ jsonrpc: "2.0", id: "gw-1", result: {} }), false);
  assert.equal(calls.take({ jsonrpc: "2.0", id: "gw-x", result: {} }), false);
  assert.equal(calls.take({ jsonrpc: "2.0", id: "gw-1", method: "roots/list" }), false);
  assert.equal(
    calls.take({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 3 } }),
    false,
  );
  assert.equal(calls.take("garbage"), false);
  assert.equal(calls.take(null), false);
});

Deno.test("`StdioToolCalls.call()` validates a result that is not plain text as the SDK does", async () => {
  const { calls, options } = setup();
  const image = calls.call("img", {}, options());
  const extra = calls.call("extra", {}, options());
  const malformed = calls.call("bad", {}, options());
  calls.take({
    jsonrpc: "2.0",
    id: "gw-1",
    result: { content: [{ type: "image", data: "AAAA", mimeType: "image/png" }] },
  });
  calls.take({
    jsonrpc: "2.0",
    id: "gw-2",
    result: { content: [{ type: "text", text: "t", stray: 1 }], extra: true },
  });
  calls.take({ jsonrpc: "2.0", id: "gw-3", result: { content: [{ type: "image" }] } });
  assert.deepStrictEqual(await image, {
    content: [{ type: "image", data: "AAAA", mimeType: "image/png" }],
  });
  // Unknown block keys are dropped, unknown result keys kept, exactly as `Client.callTool` does.
  assert.deepStrictEqual(await extra, { content: [{ type: "text", text: "t" }], extra: true });
  const error = await malformed.then(() => null, (e: unknown) => e);
  assert.ok(error instanceof SdkError);
  assert.equal(error.code, SdkErrorCode.InvalidResult);
});

Deno.test("`StdioToolCalls.call()` rejects with the upstream's error as a ProtocolError", async () => {
  const { calls, options } = setup();
  const answer = calls.call("nope", {}, options());
  calls.take({ jsonrpc: "2.0", id: "gw-1", error: { code: -32602, message: "Unknown tool" } });
  const error = await answer.then(() => null, (e: unknown) => e);
  assert.ok(error instanceof ProtocolError);
  assert.equal(error.code, -32602);
  assert.match(error.message, /Unknown tool/);
});

Deno.test("`StdioToolCalls.call()` times out after silence, and progress resets the wait", async () => {
  const { sent, calls, options } = setup();
  const progress: number[] = [];
  const answer = calls.call(
    "slow",
    {},
    options({ timeout: 150, onprogress: (p: { progress: number }) => progress.push(p.progress) }),
  );
  assert.deepStrictEqual((sent[0]?.params as Record<string, unknown>)._meta, {
    progressToken: "gw-1",
  });
  const started = Date.now();
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(
    calls.take({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: "gw-1", progress: 1, total: 2 },
    }),
    true,
  );
  const error = await answer.then(() => null, (e: unknown) => e);
  assert.ok(Date.now() - started >= 240, "progress extended the wait");
  assert.deepStrictEqual(progress, [1]);
  assert.ok(error instanceof SdkError);
  assert.equal(error.code, SdkErrorCode.RequestTimeout);
  assert.deepStrictEqual(sent[1], {
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: "gw-1", reason: String(error) },
  });
});

Deno.test("`StdioToolCalls.call()` stops at maxTotalTimeout even while progress arrives", async () => {
  const { sent, calls, options } = setup();
  const progress: number[] = [];
  const started = Date.now();
  const answer = calls.call(
    "forever",
    {},
    options({
      timeout: 40,
      maxTotalTimeout: 100,
      onprogress: (p: { progress: number }) => progress.push(p.progress),
    }),
  );
  const settled = answer.then(() => null, (e: unknown) => e);
  let step = 0;
  const ticker = setInterval(() => {
    calls.take({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: "gw-1", progress: ++step },
    });
  }, 10);
  const error = await settled;
  clearInterval(ticker);
  assert.ok(Date.now() - started >= 100, "progress kept it alive past the silence timeout");
  assert.ok(progress.length >= 3, `${progress.length} progress updates`);
  assert.ok(error instanceof SdkError);
  assert.equal((error.data as { maxTotalTimeout: number }).maxTotalTimeout, 100);
  assert.equal(sent[1]?.method, "notifications/cancelled");
});

Deno.test("`StdioToolCalls.call()` cancels upstream when its signal aborts, and ignores a late answer", async () => {
  const { sent, calls, options } = setup();
  const controller = new AbortController();
  // A run's calls share its signal: a call answered before the abort is not cancelled.
  const answered = calls.call("quick", {}, options({ signal: controller.signal }));
  const first = calls.call("hang", {}, options({ signal: controller.signal }));
  const second = calls.call("hang", {}, options({ signal: controller.signal }));
  calls.take({ jsonrpc: "2.0", id: "gw-1", result: { content: [] } });
  assert.deepStrictEqual(await answered, { content: [] });
  controller.abort(new Error("run cancelled"));
  for (const call of [first, second]) {
    const error = await call.then(() => null, (e: unknown) => e);
    assert.ok(error instanceof SdkError);
    assert.match(error.message, /run cancelled/);
  }
  assert.deepStrictEqual(sent.slice(3).map((m) => m.params), [
    { requestId: "gw-2", reason: "Error: run cancelled" },
    { requestId: "gw-3", reason: "Error: run cancelled" },
  ]);
  assert.equal(calls.take({ jsonrpc: "2.0", id: "gw-2", result: { content: [] } }), true);
});

Deno.test("`StdioToolCalls.close()` fails the calls in flight and later calls with ConnectionClosed", async () => {
  const { calls, options } = setup();
  const inFlight = calls.call("hang", {}, options());
  calls.close();
  for (const call of [inFlight, calls.call("late", {}, options())]) {
    const error = await call.then(() => null, (e: unknown) => e);
    assert.ok(error instanceof SdkError);
    assert.equal(error.code, SdkErrorCode.ConnectionClosed);
  }
});

Deno.test("`StdioToolCalls.call()` rejects with the transport's error when the request cannot be sent", async () => {
  const calls = new StdioToolCalls((_message, onFailed) => onFailed(new Error("stdin closed")));
  const error = await calls.call("echo", {}, {
    signal: new AbortController().signal,
    timeout: 60_000,
    maxTotalTimeout: 600_000,
  }).then(() => null, (e: Error) => e);
  assert.equal(error?.message, "stdin closed");
});
