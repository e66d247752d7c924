import assert from "node:assert/strict";
import type { GatewayToRunner, RunnerToGateway } from "../protocol/channel_messages.ts";
import { ToolCallError } from "../protocol/tool_call.ts";
import { GatewayTelemetry } from "../telemetry/gateway_telemetry.ts";
import { CallBroker, type CallBrokerOptions, type ScriptToolCall } from "./call_broker.ts";
import { RunReturns } from "./run_returns.ts";
import { pollUntil } from "../../test/support/poll_until.ts";

type Reply = Extract<GatewayToRunner, { t: "reply" }>;

/** A runner's channel in memory: the test plays the script, the broker the gateway. */
class MemoryConnection {
  #handler: ((message: RunnerToGateway) => void) | null = null;
  readonly replies: Reply[] = [];
  #waiters: { id: number; resolve: (reply: Reply) => void }[] = [];

  /** Calls the broker asked the script to locate. */
  readonly located: number[] = [];

  send(message: GatewayToRunner): void {
    if (message.t === "locate") {
      this.located.push(message.id);
      return;
    }
    if (message.t !== "reply") throw new Error(`unexpected ${message.t} sent to the script`);
    this.replies.push(message);
    const waiter = this.#waiters.find((w) => w.id === message.id);
    if (waiter) {
      this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
      waiter.resolve(message);
    }
  }

  onMessage(handler: (message: RunnerToGateway) => void): void {
    this.#handler = handler;
  }

  /** Sends a message as the script would. */
  script(message: RunnerToGateway): void {
    if (this.#handler === null) throw new Error("the broker installed no handler");
    this.#handler(message);
  }

  /** Resolves with the reply to request `id`. */
  reply(id: number): Promise<Reply> {
    const sent = this.replies.find((r) => r.id === id);
    if (sent) return Promise.resolve(sent);
    return new Promise((resolve) => this.#waiters.push({ id, resolve }));
  }
}

function returns(): RunReturns {
  return new RunReturns({
    maxResultBytes: 65_536,
    maxAttachments: 4,
    maxAttachmentBytes: 65_536,
    maxWarnings: 10,
  });
}

function broker(
  callTool: (call: ScriptToolCall) => Promise<unknown>,
  overrides: Partial<CallBrokerOptions> = {},
): { broker: CallBroker; connection: MemoryConnection; returns: RunReturns } {
  const connection = new MemoryConnection();
  const collected = returns();
  const made = new CallBroker({
    runId: "run-1",
    connection,
    returns: collected,
    maxToolCalls: 100,
    maxConcurrentCalls: 4,
    callTimeoutMs: 5_000,
    deadline: 1_000_000,
    argsChecked: true,
    callTool,
    resources: () => Promise.resolve([]),
    trace: new GatewayTelemetry({ enabled: false }).startRun({ runId: "run-1", client: "test" }),
    ...overrides,
  });
  return { broker: made, connection, returns: collected };
}

function call(id: number, tool = "get", line?: number): RunnerToGateway {
  return {
    t: "call",
    id,
    namespace: "kv",
    tool,
    args: { key: id },
    raw: false,
    ...(line === undefined ? {} : { line }),
  };
}

/** A promise with its resolve and reject at hand. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

Deno.test("CallBroker answers a call with the tool's value and records it for history", async () => {
  const seen: ScriptToolCall[] = [];
  const { broker: b, connection } = broker((c) => {
    seen.push(c);
    return Promise.resolve({ value: 42 });
  });
  connection.script(call(1));
  assert.deepEqual(await connection.reply(1), {
    t: "reply",
    id: 1,
    ok: true,
    value: { value: 42 },
  });
  assert.equal(seen.length, 1);
  assert.equal(seen[0]!.runId, "run-1");
  assert.deepEqual(seen[0]!.args, { key: 1 });
  assert.equal(seen[0]!.argsChecked, true);
  assert.equal(seen[0]!.callTimeoutMs, 5_000);
  assert.equal(seen[0]!.deadline, 1_000_000);
  assert.equal(b.toolCalls.length, 1);
  const record = b.toolCalls[0]!;
  assert.equal(record.ok, true);
  assert.equal(record.errorKind, null);
  assert.equal(record.namespace, "kv");
  assert.equal(record.tool, "get");
  assert.equal(record.result, '{"value":42}');
});

Deno.test("CallBroker fails calls past maxToolCalls without reaching the tool", async () => {
  let reached = 0;
  const { broker: b, connection } = broker(() => {
    reached++;
    return Promise.resolve(1);
  }, { maxToolCalls: 2 });
  for (const id of [1, 2, 3]) connection.script(call(id));
  const third = await connection.reply(3);
  assert.equal(third.ok, false);
  assert.ok(!third.ok && third.error.kind === "ToolCallLimitExceeded");
  assert.match(!third.ok ? third.error.message : "", /exec\.maxToolCalls \(2\) at kv\.get/);
  await connection.reply(2);
  assert.equal(reached, 2);
  assert.equal(b.toolCalls.length, 2);
});

Deno.test("CallBroker holds calls past maxConcurrentCalls until one ends, in order", async () => {
  const pending = new Map<number, ReturnType<typeof deferred<unknown>>>();
  const started: number[] = [];
  const waits: { count: number; resolve: () => void }[] = [];
  const startedCount = (count: number) =>
    started.length >= count
      ? Promise.resolve()
      : new Promise<void>((resolve) => waits.push({ count, resolve }));
  const { connection } = broker((c) => {
    const id = (c.args as { key: number }).key;
    started.push(id);
    const d = deferred<unknown>();
    pending.set(id, d);
    for (const w of waits.filter((w) => started.length >= w.count)) w.resolve();
    return d.promise;
  }, { maxConcurrentCalls: 2 });
  for (const id of [1, 2, 3, 4]) connection.script(call(id));
  await startedCount(2);
  assert.deepEqual(started, [1, 2], "calls 3 and 4 wait while two are in flight");
  pending.get(2)!.resolve("two");
  assert.equal((await connection.reply(2)).ok, true);
  await startedCount(3);
  assert.deepEqual(started, [1, 2, 3]);
  pending.get(1)!.resolve(1);
  await startedCount(4);
  assert.deepEqual(started, [1, 2, 3, 4]);
  for (const id of [3, 4]) pending.get(id)!.resolve(id);
  assert.deepEqual(
    (await Promise.all([1, 3, 4].map((id) => connection.reply(id)))).map((r) => r.ok),
    [true, true, true],
  );
});

Deno.test("CallBroker forwards a tool's failure with its kind and envelope, and records it", async () => {
  const raw = { content: [{ type: "text" as const, text: "nope" }], isError: true };
  const { broker: b, connection } = broker((c) =>
    c.tool === "typed"
      ? Promise.reject(new ToolCallError("InvalidToolInput", "key must be a string", { raw }))
      : Promise.reject(new Error("socket closed"))
  );
  connection.script(call(1, "typed"));
  connection.script(call(2, "plain"));
  const typed = await connection.reply(1);
  assert.deepEqual(typed, {
    t: "reply",
    id: 1,
    ok: false,
    error: {
      kind: "InvalidToolInput",
      message: "key must be a string",
      namespace: "kv",
      tool: "typed",
    },
    raw,
  });
  const plain = await connection.reply(2);
  assert.ok(!plain.ok);
  assert.deepEqual(plain.error, {
    kind: "ToolError",
    message: "socket closed",
    namespace: "kv",
    tool: "plain",
  });
  assert.deepEqual(b.toolCalls.map((r) => [r.tool, r.ok, r.errorKind, r.result]), [
    ["typed", false, "InvalidToolInput", "key must be a string"],
    ["plain", false, "ToolError", "socket closed"],
  ]);
});

Deno.test("CallBroker names a failed tool as the script typed it, with the upstream name beside", async () => {
  const { broker: b, connection } = broker(
    () =>
      Promise.reject(
        new ToolCallError(
          "InvalidToolInput",
          'Invalid input for tool "kv.get-sum": "/b" must be number',
        ),
      ),
    { typedName: (namespace, tool) => `${namespace}.${tool.replaceAll("-", "_")}` },
  );
  connection.script(call(1, "get-sum"));
  const reply = await connection.reply(1);
  const expected =
    'Invalid input for tool "kv.get_sum" (upstream name "get-sum"): "/b" must be number';
  assert.ok(!reply.ok);
  assert.equal(reply.error.message, expected);
  assert.equal(reply.error.tool, "get-sum", "the error's fields keep the upstream's name");
  assert.equal(b.toolCalls[0]?.result, expected);
});

Deno.test("CallBroker keeps only a head of a huge call result, with its whole size", async () => {
  const big = "x".repeat(100_000);
  const { broker: b, connection } = broker(() => Promise.resolve(big));
  connection.script(call(1));
  assert.equal((await connection.reply(1)).ok, true);
  const record = b.toolCalls[0]!;
  assert.equal(record.result?.length, 16_384);
  assert.equal(record.resultTotalBytes, 100_002);
});

Deno.test("CallBroker collects the script's result, warnings, attachments and failure", () => {
  const { broker: b, connection, returns: collected } = broker(() => Promise.resolve(null));
  connection.script({ t: "result", value: { answer: 1 } });
  connection.script({ t: "warning", message: "careful" });
  connection.script({ t: "attach", block: { type: "text", text: "note" } });
  connection.script({ t: "failed", error: { name: "TypeError", message: "x is undefined" } });
  assert.deepEqual(collected.fullResult, { answer: 1 });
  assert.deepEqual(collected.attachments, [{ type: "text", text: "note" }]);
  assert.deepEqual(collected.bounded("run-1", { includeResult: true }).warnings, ["careful"]);
  assert.deepEqual(b.failure, { name: "TypeError", message: "x is undefined" });
});

Deno.test("CallBroker answers resources requests and names the namespace when they fail", async () => {
  const { connection } = broker(() => Promise.resolve(null), {
    resources: (request) =>
      request.op === "list"
        ? Promise.resolve([{ uri: "mem://a" }])
        : Promise.reject(new ToolCallError("UnknownTool", `No resource ${request.uri}`)),
  });
  connection.script({ t: "resources", id: 1, namespace: "docs", op: "list" });
  connection.script({ t: "resources", id: 2, namespace: "docs", op: "read", uri: "mem://b" });
  assert.deepEqual(await connection.reply(1), {
    t: "reply",
    id: 1,
    ok: true,
    value: [{ uri: "mem://a" }],
  });
  const failed = await connection.reply(2);
  assert.ok(!failed.ok);
  assert.deepEqual(failed.error, {
    kind: "UnknownTool",
    message: "No resource mem://b",
    namespace: "docs",
    tool: "resources",
  });
});

Deno.test("CallBroker names the call a stopped run waited on and aborts calls when stopped", async () => {
  const signals: AbortSignal[] = [];
  const started = deferred<void>();
  const { broker: b, connection } = broker((c) => {
    signals.push(c.signal);
    if (signals.length === 2) started.resolve();
    return new Promise((_, reject) =>
      c.signal.addEventListener("abort", () => reject(new ToolCallError("Cancelled", "stopped")))
    );
  });
  connection.script(call(1, "slow", 7));
  connection.script(call(2, "slower", 9));
  await started.promise;
  assert.equal(b.waitingCall()?.tool, "slow");
  assert.equal(b.waitingCall()?.line, 7);
  b.stop();
  assert.ok(signals.length === 2 && signals.every((s) => s.aborted));
  const first = await connection.reply(1);
  assert.ok(!first.ok && first.error.kind === "Cancelled");
  await connection.reply(2);
  assert.equal(b.waitingCall(), undefined);
});

Deno.test("CallBroker asks the runner where a waiting call is and keeps the line it answers", async () => {
  const started = deferred<void>();
  const finish = deferred<unknown>();
  const { broker: b, connection } = broker(() => {
    started.resolve();
    return finish.promise;
  });
  connection.script(call(1, "slow"));
  await started.promise;
  assert.equal(b.waitingCall()?.line, undefined);
  await pollUntil(
    "the broker to ask for the waiting call's line",
    () => connection.located.includes(1),
    { timeoutMs: 3000 },
  );
  connection.script({ t: "call_line", id: 1, line: 12 });
  assert.equal(b.waitingCall()?.line, 12);
  connection.script({ t: "call_line", id: 99, line: 3 }); // no such call: ignored
  assert.equal(b.waitingCall()?.line, 12);
  finish.resolve("done");
  const reply = await connection.reply(1);
  assert.ok(reply.ok && reply.value === "done");
  b.stop();
});

Deno.test("CallBroker hands a call that finds a turn free to callTool in the turn its line came", async () => {
  const seen: number[] = [];
  const { connection, broker: b } = broker((c) => {
    seen.push((c.args as { key: number }).key);
    return c.tool === "boom" ? Promise.reject(new Error("no")) : Promise.resolve("ok");
  });
  connection.script(call(1));
  assert.deepEqual(seen, [1], "no await between the line and the call");
  // A callTool that throws at once fails the call alone, and its turn is given back.
  const { connection: throwing } = broker(() => {
    throw new Error("thrown before any promise");
  }, { maxConcurrentCalls: 1 });
  throwing.script(call(7));
  const failed = await throwing.reply(7);
  assert.ok(!failed.ok && /thrown before any promise/.test(failed.error.message));
  throwing.script(call(8));
  assert.equal((await throwing.reply(8)).ok, false, "the turn came back: the next call ran");
  assert.equal((await connection.reply(1)).ok, true);
  assert.equal(b.toolCalls.length, 1);
});
