import assert from "node:assert/strict";
import type { CallErrorData, ChannelError } from "../protocol/channel_messages.ts";
import { InMemoryTransport } from "../protocol/in_memory_transport.ts";
import type { RpcError } from "../protocol/json_rpc.ts";
import { MessagePeer } from "../protocol/message_peer.ts";
import type { Transport, TransportEvents, WireMessage } from "../protocol/transport.ts";
import { ToolCallError } from "../protocol/tool_call.ts";
import { GatewayTelemetry } from "../telemetry/gateway_telemetry.ts";
import { CallBroker, type CallBrokerOptions, type ScriptToolCall } from "./call_broker.ts";
import { RunReturns } from "./run_returns.ts";
import { FakeClock } from "../../test/support/fake_clock.ts";

/** An answer to one of the script's requests, as the test reads it. */
type Reply =
  | { t: "reply"; id: number; ok: true; value: unknown }
  | { t: "reply"; id: number; ok: false; error: ChannelError; raw?: unknown };

/** What the test sends as the script: requests (`call`, `resources`) and notifications. */
type ScriptMessage = { t: string; id?: number; [field: string]: unknown };

/**
 * The script's end of a run's channel, in memory: the test plays the script over a real
 * `MessagePeer`, the broker the gateway. Requests are named by the test's own ids.
 */
class ScriptSide {
  readonly peer: MessagePeer;
  readonly #replies = new Map<number, Promise<Reply>>();
  /** The test's id of each request, by its id on the wire. */
  readonly #testIds = new Map<number, number>();
  /** Calls the broker asked the script to locate (by the test's ids). */
  readonly located: number[] = [];

  constructor(transport: Transport) {
    this.peer = new MessagePeer(transport);
    this.peer.on("locate", (params) => {
      const wireId = (params as { id: number }).id;
      this.located.push(this.#testIds.get(wireId) ?? -1);
    });
  }

  /** Sends a message as the script would. */
  script(message: ScriptMessage): void {
    const { t, id, ...params } = message;
    if (t === "call" || t === "resources") {
      const testId = id!;
      const reply = new Promise<Reply>((resolve) => {
        const wireId = this.peer.call(t, params, {
          resolve: (value) => resolve({ t: "reply", id: testId, ok: true, value }),
          reject: (error) => {
            const wire = error as RpcError;
            // As the runner reads it: an error without data is a ToolError.
            const data = (wire.data ?? { kind: "ToolError" }) as unknown as CallErrorData;
            const failure: ChannelError = { kind: data.kind, message: wire.message };
            if (data.namespace !== undefined) failure.namespace = data.namespace;
            if (data.tool !== undefined) failure.tool = data.tool;
            resolve({
              t: "reply",
              id: testId,
              ok: false,
              error: failure,
              ...(data.raw === undefined ? {} : { raw: data.raw }),
            });
          },
        });
        this.#testIds.set(wireId as number, testId);
      });
      this.#replies.set(testId, reply);
      return;
    }
    if (t === "call_line") {
      const wireId = [...this.#testIds].find(([, test]) => test === id)?.[0] ?? 0;
      this.peer.notify(t, { ...params, id: wireId });
      return;
    }
    this.peer.notify(t, params);
  }

  /** Resolves with the reply to request `id`. */
  reply(id: number): Promise<Reply> {
    const reply = this.#replies.get(id);
    if (reply === undefined) throw new Error(`request ${id} was never sent`);
    return reply;
  }

  /** Lets what was sent arrive and be handled. */
  async delivered(): Promise<void> {
    for (let i = 0; i < 10; i++) await Promise.resolve();
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
): { broker: CallBroker; connection: ScriptSide; returns: RunReturns } {
  const [scriptEnd, gatewayEnd] = InMemoryTransport.pair();
  const connection = new ScriptSide(scriptEnd);
  const collected = returns();
  const made = new CallBroker({
    runId: "run-1",
    connection: new MessagePeer(gatewayEnd),
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

function call(id: number, tool = "get", line?: number): ScriptMessage {
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

Deno.test("CallBroker collects the script's result, warnings, attachments and failure", async () => {
  const { broker: b, connection, returns: collected } = broker(() => Promise.resolve(null));
  connection.script({ t: "result", value: { answer: 1 } });
  connection.script({ t: "warning", message: "careful" });
  connection.script({ t: "attach", block: { type: "text", text: "note" } });
  connection.script({ t: "failed", error: { name: "TypeError", message: "x is undefined" } });
  await connection.delivered();
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
  const clock = new FakeClock();
  const started = deferred<void>();
  const finish = deferred<unknown>();
  const { broker: b, connection } = broker(() => {
    started.resolve();
    return finish.promise;
  }, { clock });
  connection.script(call(1, "slow"));
  await started.promise;
  assert.equal(b.waitingCall()?.line, undefined);
  // A call is located only once it has waited a sweep period or two: fast calls never are.
  await clock.advance(20);
  assert.deepEqual(connection.located, []);
  await clock.advance(20);
  await connection.delivered();
  assert.deepEqual(connection.located, [1]);
  connection.script({ t: "call_line", id: 1, line: 12 });
  await connection.delivered();
  assert.equal(b.waitingCall()?.line, 12);
  connection.script({ t: "call_line", id: 99, line: 3 }); // no such call: ignored
  await connection.delivered();
  assert.equal(b.waitingCall()?.line, 12);
  finish.resolve("done");
  const reply = await connection.reply(1);
  assert.ok(reply.ok && reply.value === "done");
  b.stop();
});

/** A gateway end the test delivers to by hand, in its own turn. */
class HandEnd implements Transport {
  events: TransportEvents | undefined;
  readonly sent: WireMessage[] = [];
  start(events: TransportEvents): void {
    this.events = events;
  }
  send(message: WireMessage): void {
    this.sent.push(message);
  }
  close(): void {}
  flushed(): Promise<void> {
    return Promise.resolve();
  }
}

Deno.test("CallBroker hands a call that finds a turn free to callTool in the turn its message came", async () => {
  const seen: number[] = [];
  const end = new HandEnd();
  const b = new CallBroker({
    runId: "run-1",
    connection: new MessagePeer(end),
    returns: returns(),
    maxToolCalls: 100,
    maxConcurrentCalls: 4,
    callTimeoutMs: 5_000,
    deadline: 1_000_000,
    argsChecked: true,
    callTool: (c) => {
      seen.push((c.args as { key: number }).key);
      return Promise.resolve("ok");
    },
    resources: () => Promise.resolve([]),
    trace: new GatewayTelemetry({ enabled: false }).startRun({ runId: "run-1", client: "test" }),
  });
  await Promise.resolve(); // the peer starts a microtask after it is made
  end.events!.message({
    id: 1,
    method: "call",
    params: { namespace: "kv", tool: "get", args: { key: 1 }, raw: false },
  });
  assert.deepEqual(seen, [1], "no await between the message and the call");
  await Promise.resolve();
  assert.deepEqual(end.sent, [{ id: 1, result: "ok" }]);
  assert.equal(b.toolCalls.length, 1);
  // A callTool that throws at once fails the call alone, and its turn is given back.
  const { connection: throwing } = broker(() => {
    throw new Error("thrown before any promise");
  }, { maxConcurrentCalls: 1 });
  throwing.script(call(7));
  const failed = await throwing.reply(7);
  assert.ok(!failed.ok && /thrown before any promise/.test(failed.error.message));
  throwing.script(call(8));
  assert.equal((await throwing.reply(8)).ok, false, "the turn came back: the next call ran");
});

Deno.test("CallBroker answers a value that cannot cross the channel with an error naming the call", async () => {
  const { broker: b, connection } = broker(() => Promise.resolve({ n: 10n }));
  connection.script(call(1, "big"));
  const reply = await connection.reply(1);
  assert.ok(!reply.ok);
  assert.match(reply.error.message, /The answer of kv\.big cannot be sent to the script/);
  assert.equal(b.toolCalls[0]?.ok, true, "the tool answered; history says so");
});

Deno.test("CallBroker answers a failure whose envelope cannot cross the channel, and records it", async () => {
  const raw = { content: [{ type: "text", text: "nope" }], isError: true, n: 10n } as never;
  const { broker: b, connection } = broker(() =>
    Promise.reject(new ToolCallError("ToolError", "the tool failed", { raw }))
  );
  connection.script(call(1, "big"));
  const reply = await connection.reply(1);
  assert.ok(!reply.ok);
  assert.equal(reply.error.kind, "ToolError");
  assert.match(reply.error.message, /^the tool failed \(its error cannot be sent whole: /);
  assert.deepEqual(b.toolCalls.map((r) => [r.tool, r.ok]), [["big", false]]);
});
