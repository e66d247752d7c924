import assert from "node:assert/strict";
import { relayTasks } from "./task_relay.ts";
import type { JSONRPCMessage, Transport, TransportSendOptions } from "./mcp_sdk.ts";
import type { AnswerInput } from "./upstream_question.ts";
import { pollUntil } from "../../../test/support/poll_until.ts";

type Message = Record<string, unknown>;

/**
 * A transport whose server answers with `serve` (each answer delivered as the transport would),
 * with the relay installed and a client handler that keeps what reaches it.
 */
function relayed(
  serve: (message: Message) => Message | undefined,
  answerer: () => AnswerInput | undefined = () => undefined,
) {
  const wire: Message[] = [];
  const client: Message[] = [];
  const transport = {
    onmessage: undefined,
    start: () => Promise.resolve(),
    close: () => Promise.resolve(),
    send(message: JSONRPCMessage) {
      wire.push(message as Message);
      const answer = serve(message as Message);
      if (answer !== undefined) {
        queueMicrotask(() => transport.onmessage?.(answer as JSONRPCMessage));
      }
      return Promise.resolve();
    },
  } as Transport;
  relayTasks(transport, {
    envelope: () => ({ "io.modelcontextprotocol/protocolVersion": "2026-07-28" }),
    answerer,
    onError: () => {},
  });
  transport.onmessage = (message) => void client.push(message as Message);
  return { transport, wire, client };
}

const task = (status: string, extra: Message = {}) => ({
  taskId: "t1",
  status,
  pollIntervalMs: 50,
  ...extra,
});

const callTool = (id: number, progressToken?: number): JSONRPCMessage =>
  ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "slow", arguments: {}, ...(progressToken ? { _meta: { progressToken } } : {}) },
  }) as JSONRPCMessage;

Deno.test("relayTasks() follows a task with tasks/get and hands the client its result as the call's answer, each status as progress", async () => {
  let polls = 0;
  const { transport, wire, client } = relayed((m) => {
    if (m.method === "tools/call") {
      return { jsonrpc: "2.0", id: m.id, result: { resultType: "task", ...task("working") } };
    }
    if (m.method === "tasks/get") {
      polls++;
      const done = polls >= 2;
      return {
        jsonrpc: "2.0",
        id: m.id,
        result: {
          resultType: "complete",
          ...task(done ? "completed" : "working", done ? { result: { content: [] } } : {}),
        },
      };
    }
    return undefined;
  });
  await transport.send(callTool(7, 7));
  await pollUntil("the call's answer", () => client.some((m) => m.id === 7), { timeoutMs: 5000 });
  const answer = client.find((m) => m.id === 7)!;
  assert.deepEqual(answer.result, { content: [], resultType: "complete" });
  const progress = client.filter((m) => m.method === "notifications/progress");
  assert.equal(progress.length, 3);
  assert.deepEqual(progress.map((m) => (m.params as Message).message), [
    "task working",
    "task working",
    "task completed",
  ]);
  // The relay's own requests carry the era's envelope; their answers never reach the client.
  const gets = wire.filter((m) => m.method === "tasks/get");
  assert.equal(gets.length, 2);
  assert.deepEqual(gets[0]!.params, {
    taskId: "t1",
    _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" },
  });
  assert.equal(client.filter((m) => "result" in m).length, 1);
});

Deno.test("relayTasks() answers a task's questions through the call's answerer with tasks/update", async () => {
  const asked: Message[] = [];
  const answerer: AnswerInput = (requests) => {
    asked.push(requests);
    return Promise.resolve({ ok: { action: "accept", content: { ok: true } } });
  };
  let updated = false;
  const { transport, wire, client } = relayed((m) => {
    if (m.method === "tools/call") {
      return {
        jsonrpc: "2.0",
        id: m.id,
        result: {
          resultType: "task",
          ...task("input_required", {
            inputRequests: { ok: { method: "elicitation/create", params: { message: "Go?" } } },
          }),
        },
      };
    }
    if (m.method === "tasks/update") {
      updated = true;
      return { jsonrpc: "2.0", id: m.id, result: { resultType: "complete" } };
    }
    if (m.method === "tasks/get") {
      return {
        jsonrpc: "2.0",
        id: m.id,
        result: updated
          ? { resultType: "complete", ...task("completed", { result: { content: [] } }) }
          : { resultType: "complete", ...task("working") },
      };
    }
    return undefined;
  }, () => answerer);
  await transport.send(callTool(3));
  await pollUntil("the call's answer", () => client.some((m) => m.id === 3), { timeoutMs: 5000 });
  assert.deepEqual(asked, [{ ok: { method: "elicitation/create", params: { message: "Go?" } } }]);
  const update = wire.find((m) => m.method === "tasks/update")!;
  assert.deepEqual((update.params as Message).inputResponses, {
    ok: { action: "accept", content: { ok: true } },
  });
});

Deno.test("relayTasks() hands a failed task's error to the client, and cancels a task the client gave up on", async () => {
  const { transport, wire, client } = relayed((m) => {
    if (m.method === "tools/call") {
      const failing = (m.params as Message).name === "fail";
      return {
        jsonrpc: "2.0",
        id: m.id,
        result: {
          resultType: "task",
          ...task(
            failing ? "failed" : "working",
            failing ? { error: { code: -32000, message: "disk full" } } : {},
          ),
        },
      };
    }
    if (m.method === "tasks/get") {
      return { jsonrpc: "2.0", id: m.id, result: { resultType: "complete", ...task("working") } };
    }
    if (m.method === "tasks/cancel") {
      return { jsonrpc: "2.0", id: m.id, result: { resultType: "complete" } };
    }
    return undefined;
  });
  await transport.send(
    { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "fail" } } as JSONRPCMessage,
  );
  await pollUntil("the failure", () => client.some((m) => m.id === 1), { timeoutMs: 5000 });
  assert.deepEqual(client.find((m) => m.id === 1)!.error, { code: -32000, message: "disk full" });

  // A 2025-era client cancels with notifications/cancelled: the task is what stops.
  await transport.send(callTool(2));
  await pollUntil("the task to be polled", () => wire.some((m) => m.method === "tasks/get"), {
    timeoutMs: 5000,
  });
  await transport.send(
    {
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 2, reason: "timed out" },
    } as JSONRPCMessage,
  );
  assert.ok(wire.some((m) => m.method === "tasks/cancel"));
  assert.equal(wire.some((m) => m.method === "notifications/cancelled"), false);
  const polled = wire.filter((m) => m.method === "tasks/get").length;
  await new Promise((resolve) => setTimeout(resolve, 150));
  assert.equal(wire.filter((m) => m.method === "tasks/get").length, polled, "polls stopped");
  assert.equal(client.some((m) => m.id === 2), false);
});

Deno.test("relayTasks() cancels a task whose answer comes after the client gave up on the call", async () => {
  const { transport, wire, client } = relayed((m) =>
    m.method === "tasks/cancel" ? { jsonrpc: "2.0", id: m.id, result: {} } : undefined
  );
  // A 2026-07-28 client gives up by aborting the request's stream, a 2025 one by
  // notifications/cancelled: both before the server has answered.
  const controller = new AbortController();
  await transport.send(callTool(3), { requestSignal: controller.signal } as TransportSendOptions);
  controller.abort();
  await transport.send(callTool(4));
  await transport.send(
    {
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 4, reason: "timed out" },
    } as JSONRPCMessage,
  );
  assert.equal(wire.some((m) => m.method === "tasks/cancel"), false, "no task known yet");
  // Then the answers come: each is a task, which would work on for nobody.
  for (const [id, taskId] of [[3, "late-3"], [4, "late-4"]] as const) {
    transport.onmessage?.(
      {
        jsonrpc: "2.0",
        id,
        result: { resultType: "task", ...task("working", { taskId }) },
      } as JSONRPCMessage,
    );
  }
  assert.deepEqual(
    wire.filter((m) => m.method === "tasks/cancel").map((m) => (m.params as Message).taskId),
    ["late-3", "late-4"],
  );
  await new Promise((resolve) => setTimeout(resolve, 120));
  assert.equal(
    wire.some((m) => m.method === "tasks/get"),
    false,
    "an abandoned task is not polled",
  );
  // An answer that is not a task is only passed on, once.
  await transport.send(callTool(5));
  await transport.send(
    {
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 5 },
    } as JSONRPCMessage,
  );
  transport.onmessage?.({ jsonrpc: "2.0", id: 5, result: { content: [] } } as JSONRPCMessage);
  assert.equal(wire.filter((m) => m.method === "tasks/cancel").length, 2);
  assert.ok(client.some((m) => m.id === 5));
});
