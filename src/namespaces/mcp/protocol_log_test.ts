import assert from "node:assert/strict";
import { type ProtocolEntry, ProtocolLog, ProtocolLogs } from "./protocol_log.ts";

Deno.test("`ProtocolLog` names an answer by the method of its request and times it", () => {
  const log = new ProtocolLog();
  log.record("sent", { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "echo" } });
  log.record("received", { jsonrpc: "2.0", method: "notifications/progress", params: {} });
  log.record("received", { jsonrpc: "2.0", id: 7, error: { code: -32602, message: "bad" } });
  // A request from the server, answered by the gateway: paired the other way round.
  log.record("received", { jsonrpc: "2.0", id: "s1", method: "roots/list" });
  log.record("sent", { jsonrpc: "2.0", id: "s1", result: { roots: [] } });
  const entries = log.entries();
  assert.deepEqual(
    entries.map((e) => [e.seq, e.direction, e.kind, e.method, e.id]),
    [
      [1, "sent", "request", "tools/call", 7],
      [2, "received", "notification", "notifications/progress", null],
      [3, "received", "error", "tools/call", 7],
      [4, "received", "request", "roots/list", "s1"],
      [5, "sent", "result", "roots/list", "s1"],
    ],
  );
  assert.equal(typeof entries[2]?.durationMs, "number");
  assert.deepEqual(entries.map((e) => e.target), ["echo", null, "echo", null, null]);
  assert.equal(entries[0]?.durationMs, undefined);
  const request = { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "echo" } };
  assert.equal(entries[0]?.bytes, JSON.stringify(request).length);
});

Deno.test("`ProtocolLog` sizes messages in UTF-8 bytes and keeps a head of a large one", () => {
  const log = new ProtocolLog({ maxMessageChars: 50 });
  log.record("received", { jsonrpc: "2.0", id: 1, result: { text: "é".repeat(100) } });
  const [entry] = log.entries();
  const whole = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { text: "é".repeat(100) } });
  assert.equal(entry?.bytes, new TextEncoder().encode(whole).length);
  const message = log.message(entry!.seq);
  assert.equal(message?.truncated, true);
  assert.equal(message?.text, whole.slice(0, 50));
});

Deno.test("`ProtocolLog` keeps at most its capacity and its character budget, oldest out first", () => {
  const byCount = new ProtocolLog({ capacity: 3 });
  for (let i = 1; i <= 10; i++) byCount.record("sent", { jsonrpc: "2.0", method: `m${i}` });
  assert.deepEqual(byCount.entries().map((e) => e.method), ["m8", "m9", "m10"]);
  assert.equal(byCount.message(1), undefined);

  const big = { jsonrpc: "2.0", method: "x", params: { pad: "p".repeat(80) } };
  const size = JSON.stringify(big).length;
  const byChars = new ProtocolLog({ maxChars: 2 * size + 1 });
  for (let i = 0; i < 10; i++) byChars.record("received", big);
  const kept = byChars.entries();
  assert.equal(kept.length, 2, "two messages fit in the budget, not three");
  assert.deepEqual(kept.map((e) => e.seq), [9, 10]);
});

Deno.test("`ProtocolLog.entries({ after, limit })` pages by seq; `clear()` keeps the numbering", () => {
  const log = new ProtocolLog();
  for (let i = 0; i < 5; i++) log.record("sent", { jsonrpc: "2.0", method: "ping", id: i });
  assert.deepEqual(log.entries({ after: 3 }).map((e) => e.seq), [4, 5]);
  assert.deepEqual(log.entries({ limit: 2 }).map((e) => e.seq), [4, 5]);
  log.clear();
  assert.deepEqual(log.entries(), []);
  log.record("sent", { jsonrpc: "2.0", method: "ping", id: 9 });
  assert.deepEqual(log.entries().map((e) => e.seq), [6]);
});

Deno.test("`ProtocolLog` tells listeners new messages in batches, after the recording turn", async () => {
  const log = new ProtocolLog();
  const batches: ProtocolEntry[][] = [];
  const off = log.onEntries((entries) => batches.push(entries));
  log.record("sent", { jsonrpc: "2.0", method: "a" });
  log.record("sent", { jsonrpc: "2.0", method: "b" });
  assert.equal(batches.length, 0, "nothing is serialised in the caller's turn");
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.deepEqual(batches.map((b) => b.map((e) => e.method)), [["a", "b"]]);
  off();
  log.record("sent", { jsonrpc: "2.0", method: "c" });
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(batches.length, 1);
  assert.equal(log.entries().length, 3);
});

Deno.test("`ProtocolLog` shows a message JSON cannot serialise instead of failing", () => {
  const log = new ProtocolLog();
  const cyclic: Record<string, unknown> = { jsonrpc: "2.0", method: "x" };
  cyclic.self = cyclic;
  log.record("sent", cyclic);
  const [entry] = log.entries();
  assert.equal(entry?.method, "x");
  assert.match(log.message(entry!.seq)?.text ?? "", /cannot show this message as JSON/);
});

Deno.test("`ProtocolLogs` keeps one log per namespace until it is dropped", () => {
  const logs = new ProtocolLogs();
  assert.equal(logs.get("a"), undefined);
  const a = logs.for("a");
  assert.equal(logs.for("a"), a);
  assert.equal(logs.get("a"), a);
  logs.drop("a");
  assert.equal(logs.get("a"), undefined);
  assert.notEqual(logs.for("a"), a);
});

Deno.test("`ProtocolLogs.watch()` tells a watcher new messages until it unwatches or aborts", async () => {
  const logs = new ProtocolLogs();
  const connection = new AbortController();
  const seen: string[] = [];
  logs.watch(
    connection.signal,
    "a",
    (entries) => seen.push(...entries.map((e) => `a:${e.method}`)),
  );
  logs.watch(
    connection.signal,
    "a",
    (entries) => seen.push(...entries.map((e) => `twice:${e.method}`)),
  );
  logs.watch(
    connection.signal,
    "b",
    (entries) => seen.push(...entries.map((e) => `b:${e.method}`)),
  );
  const settle = () => new Promise((resolve) => setTimeout(resolve, 40));
  logs.for("a").record("sent", { jsonrpc: "2.0", method: "one" });
  logs.for("b").record("sent", { jsonrpc: "2.0", method: "two" });
  await settle();
  assert.deepEqual(seen.sort(), ["a:one", "b:two"]);
  logs.unwatch(connection.signal, "a");
  logs.for("a").record("sent", { jsonrpc: "2.0", method: "three" });
  await settle();
  assert.deepEqual(seen.sort(), ["a:one", "b:two"]);
  connection.abort();
  logs.for("b").record("sent", { jsonrpc: "2.0", method: "four" });
  await settle();
  assert.deepEqual(seen.sort(), ["a:one", "b:two"]);
});

Deno.test("`ProtocolLog` masks a message whole before it keeps a head of it", () => {
  const secret = "s3cret-value-that-is-long";
  const message = { jsonrpc: "2.0", id: 1, result: { env: `TOKEN=${secret}` } };
  const text = JSON.stringify(message);
  // The head ends inside the secret: masked after the cut, its first part would stay.
  const log = new ProtocolLog({
    maxMessageChars: text.indexOf(secret) + 6,
    mask: (t) => t.replaceAll(secret, "[REDACTED]"),
  });
  log.record("received", message);
  const [entry] = log.entries();
  const kept = log.message(entry!.seq)!;
  assert.equal(kept.truncated, true);
  assert.ok(!kept.text.includes(secret.slice(0, 6)), kept.text);
  assert.ok(!entry!.preview.includes(secret.slice(0, 6)), entry!.preview);
  assert.equal(entry!.bytes, text.length, "the size is the message's own");
});
