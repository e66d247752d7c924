import assert from "node:assert/strict";
import { StdioToolCalls } from "./stdio_tool_calls.ts";
import { type JSONRPCMessage, ProtocolError, SdkError, SdkErrorCode } from "./mcp_sdk.ts";
import { FakeClock } from "../../../test/support/fake_clock.ts";

/**
 * A `StdioToolCalls` on a fake clock whose sent messages are kept, and call options with long
 * timeouts.
 */
function setup() {
  const sent: Record<string, unknown>[] = [];
  const clock = new FakeClock();
  const calls = new StdioToolCalls((message: JSONRPCMessage) => {
    sent.push(message as Record<string, unknown>);
  }, clock);
  const options = (overrides: Record<string, unknown> = {}) => ({
    signal: new AbortController().signal,
    timeout: 60_000,
    maxTotalTimeout: 600_000,
    ...overrides,
  });
  return { sent, calls, options, clock };
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
  const { sent, calls, options, clock } = setup();
  const progress: number[] = [];
  const answer = calls.call(
    "slow",
    {},
    options({ timeout: 150, onprogress: (p: { progress: number }) => progress.push(p.progress) }),
  );
  const settled = answer.then(() => null, (e: unknown) => e);
  assert.deepStrictEqual((sent[0]?.params as Record<string, unknown>)._meta, {
    progressToken: "gw-1",
  });
  await clock.advance(100);
  assert.equal(
    calls.take({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: "gw-1", progress: 1, total: 2 },
    }),
    true,
  );
  await clock.advance(149);
  assert.equal(calls.inFlight, 1, "progress extended the wait: 150 ms from the progress");
  await clock.advance(1);
  const error = await settled;
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
  const { sent, calls, options, clock } = setup();
  const progress: number[] = [];
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
  // Progress every 10 ms keeps the silence timeout away, not the maximum.
  for (let step = 1; step <= 9; step++) {
    await clock.advance(10);
    calls.take({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: "gw-1", progress: step },
    });
  }
  assert.equal(calls.inFlight, 1);
  await clock.advance(10);
  const error = await settled;
  assert.deepStrictEqual(progress, [1, 2, 3, 4, 5, 6, 7, 8, 9]);
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

/** The 2026-07-28 envelope a modern call carries. */
const ENVELOPE = { "io.modelcontextprotocol/protocolVersion": "2026-07-28" };

Deno.test("`StdioToolCalls.call()` on a 2026-07-28 connection sends the envelope and strips resultType", async () => {
  const { sent, calls, options } = setup();
  const answer = calls.call("echo", { message: "hi" }, options({ envelope: ENVELOPE }));
  assert.deepStrictEqual((sent[0]?.params as Record<string, unknown>)._meta, ENVELOPE);
  const result = { content: [{ type: "text", text: "Echo: hi" }] };
  calls.take({ jsonrpc: "2.0", id: "gw-1", result: { ...result, resultType: "complete" } });
  assert.deepStrictEqual(await answer, result);
});

Deno.test("`StdioToolCalls.call()` answers an input_required result and sends the call again with the answers", async () => {
  const { sent, calls, options, clock } = setup();
  const asked: unknown[] = [];
  const decided = Promise.withResolvers<void>();
  const answer = calls.call(
    "confirm",
    { path: "/a" },
    options({
      envelope: ENVELOPE,
      timeout: 100,
      answer: async (requests: Record<string, unknown>) => {
        asked.push(requests);
        await decided.promise;
        return { confirm: { action: "accept", content: { confirm: true } } };
      },
    }),
  );
  const question = { method: "elicitation/create", params: { message: "Delete /a?" } };
  calls.take({
    jsonrpc: "2.0",
    id: "gw-1",
    result: {
      resultType: "input_required",
      inputRequests: { confirm: question },
      requestState: "s1",
    },
  });
  // A person takes longer than the silence timeout: it is held meanwhile.
  await clock.advance(200);
  assert.equal(calls.inFlight, 1);
  decided.resolve();
  await pollFor(() => sent.length === 2);
  assert.deepStrictEqual(asked, [{ confirm: question }]);
  assert.deepStrictEqual(sent[1], {
    jsonrpc: "2.0",
    id: "gw-2",
    method: "tools/call",
    params: {
      name: "confirm",
      arguments: { path: "/a" },
      _meta: ENVELOPE,
      inputResponses: { confirm: { action: "accept", content: { confirm: true } } },
      requestState: "s1",
    },
  });
  calls.take({
    jsonrpc: "2.0",
    id: "gw-2",
    result: { resultType: "complete", content: [{ type: "text", text: "Deleted /a" }] },
  });
  assert.deepStrictEqual(await answer, { content: [{ type: "text", text: "Deleted /a" }] });
  assert.equal(calls.inFlight, 0);
});

Deno.test("`StdioToolCalls.call()` with handBack sends a host's answers and state, and settles with an input_required answer as it is", async () => {
  const { sent, calls, options } = setup();
  const answer = calls.call(
    "confirm",
    { path: "/a" },
    options({
      envelope: ENVELOPE,
      handBack: true,
      params: { inputResponses: { step1: { action: "accept" } }, requestState: "s1" },
    }),
  );
  assert.deepStrictEqual(sent[0]?.params, {
    inputResponses: { step1: { action: "accept" } },
    requestState: "s1",
    name: "confirm",
    arguments: { path: "/a" },
    _meta: ENVELOPE,
  });
  const asked = {
    resultType: "input_required",
    inputRequests: { step2: { method: "elicitation/create", params: { message: "Sure?" } } },
    requestState: "s2",
  };
  calls.take({ jsonrpc: "2.0", id: "gw-1", result: asked });
  assert.deepStrictEqual(await answer, asked);
  assert.equal(sent.length, 1);
  assert.equal(calls.inFlight, 0);
});

Deno.test("`StdioToolCalls.call()` fails an input_required result nobody can answer, and stops after too many rounds", async () => {
  const { calls, options } = setup();
  const unanswerable = calls.call("confirm", {}, options({ envelope: ENVELOPE }));
  calls.take({
    jsonrpc: "2.0",
    id: "gw-1",
    result: {
      resultType: "input_required",
      inputRequests: { q: { method: "elicitation/create" } },
    },
  });
  const error = await unanswerable.then(() => null, (e: unknown) => e);
  assert.ok(error instanceof SdkError);
  assert.equal(error.code, SdkErrorCode.CapabilityNotSupported);

  const { sent: sent2, calls: calls2, options: options2 } = setup();
  const looping = calls2.call(
    "loop",
    {},
    options2({
      envelope: ENVELOPE,
      answer: () => Promise.resolve({}),
    }),
  ).then(() => null, (e: unknown) => e);
  for (let round = 1; round <= 11; round++) {
    await pollFor(() => sent2.length === round);
    calls2.take({
      jsonrpc: "2.0",
      id: `gw-${round}`,
      result: { resultType: "input_required", requestState: `r${round}` },
    });
  }
  const exceeded = await looping;
  assert.ok(exceeded instanceof SdkError);
  assert.equal(exceeded.code, SdkErrorCode.InputRequiredRoundsExceeded);
});

Deno.test("`StdioToolCalls.call()` awaits a task: polls tasks/get, each status a sign of life, and gives its result", async () => {
  const { sent, calls, options, clock } = setup();
  const progress: (string | undefined)[] = [];
  const answer = calls.call(
    "slow",
    {},
    options({
      envelope: ENVELOPE,
      timeout: 150,
      onprogress: (p: { message?: string }) => progress.push(p.message),
    }),
  );
  const task = { taskId: "t1", status: "working", pollIntervalMs: 60, resultType: "task" };
  calls.take({ jsonrpc: "2.0", id: "gw-1", result: task });
  // Three polls while it works, each answered "working": longer than the silence timeout.
  for (let poll = 0; poll < 3; poll++) {
    await clock.advance(60);
    assert.equal(sent.length, 2 + poll);
    const request = sent[1 + poll]!;
    assert.equal(request.method, "tasks/get");
    assert.deepStrictEqual(request.params, { taskId: "t1", _meta: ENVELOPE });
    calls.take({
      jsonrpc: "2.0",
      id: request.id,
      result: { ...task, resultType: "complete", statusMessage: `step ${poll}` },
    });
  }
  await clock.advance(60);
  assert.equal(sent.length, 5);
  calls.take({
    jsonrpc: "2.0",
    id: sent[4]!.id,
    result: {
      taskId: "t1",
      status: "completed",
      resultType: "complete",
      result: { content: [{ type: "text", text: "done" }] },
    },
  });
  assert.deepStrictEqual(await answer, { content: [{ type: "text", text: "done" }] });
  assert.deepStrictEqual(progress, [
    "task working",
    "step 0",
    "step 1",
    "step 2",
    "task completed",
  ]);
  assert.equal(calls.inFlight, 0);
});

Deno.test("`StdioToolCalls.call()` cancels an upstream task (tasks/cancel) when the call times out or is aborted", async () => {
  for (const how of ["timeout", "abort"] as const) {
    const { sent, calls, options, clock } = setup();
    const controller = new AbortController();
    const answer = calls.call(
      "slow",
      {},
      options({
        envelope: ENVELOPE,
        signal: controller.signal,
        timeout: how === "timeout" ? 100 : 60_000,
      }),
    ).then(() => null, (e: unknown) => e);
    calls.take({
      jsonrpc: "2.0",
      id: "gw-1",
      result: { taskId: "t9", status: "working", pollIntervalMs: 5000, resultType: "task" },
    });
    if (how === "abort") controller.abort(new Error("run cancelled"));
    else await clock.advance(100);
    const error = await answer;
    assert.ok(error instanceof SdkError, String(error));
    const cancel = sent.find((m) => m.method === "tasks/cancel");
    assert.deepStrictEqual(cancel?.params, { taskId: "t9", _meta: ENVELOPE });
    assert.equal(sent.some((m) => m.method === "notifications/cancelled"), false);
    // Its late answer is dropped without a word.
    assert.equal(calls.take({ jsonrpc: "2.0", id: cancel?.id, result: {} }), true);
    assert.equal(calls.inFlight, 0);
  }
});

Deno.test("`StdioToolCalls.call()` reports a failed or cancelled task with the server's error", async () => {
  for (
    const [status, extra, pattern] of [
      ["failed", { error: { code: -32603, message: "disk full" } }, /disk full/],
      ["cancelled", { statusMessage: "operator stop" }, /cancelled the task: operator stop/],
    ] as const
  ) {
    const { calls, options } = setup();
    const answer = calls.call("slow", {}, options({ envelope: ENVELOPE }));
    calls.take({
      jsonrpc: "2.0",
      id: "gw-1",
      result: { taskId: "t2", status, resultType: "task", ...extra },
    });
    const error = await answer.then(() => null, (e: unknown) => e);
    assert.ok(error instanceof ProtocolError);
    assert.match(error.message, pattern);
  }
});

/** Waits until `condition` holds: the module's sends follow promise turns. */
async function pollFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 50 && !condition(); i++) await Promise.resolve();
  assert.ok(condition(), "condition never held");
}
