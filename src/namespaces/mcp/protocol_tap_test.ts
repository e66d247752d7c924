import assert from "node:assert/strict";
import {
  callOptions,
  realServerConfig,
  startHttpEverything,
} from "../../../test/fixtures/mcp/mcp_test_servers.ts";
import { McpNamespace } from "./mcp_namespace.ts";
import { type ProtocolEntry, ProtocolLog } from "./protocol_log.ts";
import { tapTransport } from "./protocol_tap.ts";
import type { JSONRPCMessage, Transport } from "./mcp_sdk.ts";

/** The entries of `log` as `direction kind method` lines, for assertions on the sequence. */
function lines(entries: ProtocolEntry[]): string[] {
  return entries.map((e) => `${e.direction} ${e.kind} ${e.method ?? "-"}`);
}

Deno.test("the tap logs a stdio upstream's handshake, SDK requests and direct tool calls", async () => {
  const log = new ProtocolLog();
  const ns = new McpNamespace("everything", realServerConfig("everything"), { protocolLog: log });
  try {
    await ns.start();
    assert.deepEqual(ns.status(), { state: "ready" });
    // The direct stdio path (tools/call without the SDK) and the SDK's path (resources/read).
    const sum = await ns.callTool("get-sum", { a: 2, b: 3 }, callOptions());
    assert.match(String(sum.value), /5/);
    await ns.readResource("demo://resource/static/document/features.md");
    const seen = lines(log.entries());
    for (
      const expected of [
        "sent request initialize",
        "received result initialize",
        "sent notification notifications/initialized",
        "sent request tools/list",
        "received result tools/list",
        "sent request tools/call",
        "received result tools/call",
        "sent request resources/read",
        "received result resources/read",
      ]
    ) assert.ok(seen.includes(expected), `missing "${expected}" in:\n${seen.join("\n")}`);
    const call = log.entries().find((e) => e.kind === "result" && e.method === "tools/call")!;
    assert.equal(typeof call.durationMs, "number");
    assert.match(log.message(call.seq)?.text ?? "", /The sum of 2 and 3 is 5/);
    // Each message is logged once, however many layers it passed.
    const initialize = log.entries().filter((e) => e.method === "initialize");
    assert.equal(initialize.length, 2, seen.join("\n"));
  } finally {
    await ns.stop();
  }
});

Deno.test("the tap logs a streamable HTTP upstream's messages", async () => {
  const http = await startHttpEverything("streamableHttp");
  const log = new ProtocolLog();
  const ns = new McpNamespace("http", {
    url: http.url,
    transport: "streamable-http",
    headers: {},
    disabled: false,
    startTimeoutMs: 10_000,
  }, { protocolLog: log });
  try {
    await ns.start();
    assert.deepEqual(ns.status(), { state: "ready" });
    await ns.callTool("echo", { message: "over http" }, callOptions());
    const seen = lines(log.entries());
    assert.ok(seen.includes("sent request initialize"), seen.join("\n"));
    assert.ok(seen.includes("received result tools/call"), seen.join("\n"));
    const answer = log.entries().find((e) => e.method === "tools/call" && e.kind === "result")!;
    assert.match(log.message(answer.seq)?.text ?? "", /over http/);
  } finally {
    await ns.stop();
    await http.stop();
  }
});

Deno.test("the tap wraps a handler set before or after it, and keeps `send`'s answer", async () => {
  const sent: JSONRPCMessage[] = [];
  const transport: Transport = {
    start: () => Promise.resolve(),
    close: () => Promise.resolve(),
    send: (message) => {
      sent.push(message);
      return Promise.resolve();
    },
  };
  const delivered: unknown[] = [];
  transport.onmessage = (message) => delivered.push(["first", message]);
  const log = new ProtocolLog();
  tapTransport(transport, log);
  await transport.send({ jsonrpc: "2.0", id: 1, method: "ping" });
  transport.onmessage?.({ jsonrpc: "2.0", id: 1, result: {} });
  transport.onmessage = (message) => delivered.push(["second", message]);
  transport.onmessage?.({ jsonrpc: "2.0", method: "notifications/message", params: {} });
  assert.equal(sent.length, 1);
  assert.deepEqual(delivered.map((d) => (d as [string])[0]), ["first", "second"]);
  assert.deepEqual(lines(log.entries()), [
    "sent request ping",
    "received result ping",
    "received notification notifications/message",
  ]);
});
