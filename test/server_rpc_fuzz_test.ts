/**
 * Property test of the WebSocket JSON-RPC surface: random and mutated
 * messages from a fixed seed never crash the gateway or the connection, and every reply is
 * well-formed JSON-RPC. `GATEWAY_FUZZ_RUNS` raises the budget for a longer run.
 * @module
 */

import assert from "node:assert/strict";
import { withHarness } from "./support/gateway_harness.ts";
import { RpcSocket } from "./support/rpc_socket.ts";

/** mulberry32: a small seeded PRNG, so a failure replays exactly. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const METHODS = [
  "namespaces",
  "types",
  "call",
  "catalog",
  "search",
  "describe",
  "scripts",
  "history.list",
  "history.get",
  "cancel",
  "wait",
  "workflow.status",
  "workflow.list",
  "approval.list",
  "approval.respond",
  "nope",
  "",
  "__proto__",
  "constructor",
  "ns.tool",
]; // deno-fmt-ignore

function randomValue(random: () => number, depth = 0): unknown {
  const pick = Math.floor(random() * (depth > 2 ? 6 : 8));
  switch (pick) {
    case 0:
      return null;
    case 1:
      return random() < 0.5;
    case 2:
      return Math.floor(random() * 2 ** 31) * (random() < 0.5 ? -1 : 1);
    case 3:
      return random() * 1e6;
    case 4:
      return ["", "kv", "tools.kv.get", "../x", "\u0000", "é🙂", "a".repeat(300)][Math.floor(random() * 7)];
    case 5:
      return Math.floor(random() * 20).toString(36);
    case 6:
      return Array.from({ length: Math.floor(random() * 4) }, () => randomValue(random, depth + 1));
    default: {
      const out: Record<string, unknown> = {};
      for (let i = Math.floor(random() * 4); i > 0; i--) {
        const keys = ["query", "namespace", "tool", "args", "id", "runId", "limit", "path", "source"];
        out[keys[Math.floor(random() * keys.length)]!] = randomValue(random, depth + 1);
      }
      return out;
    }
  }
}

/** A random message: mostly near-valid requests, some broken shapes and broken text. */
function randomFrame(random: () => number): string {
  const roll = random();
  if (roll < 0.1) {
    const valid = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "namespaces" });
    const at = Math.floor(random() * valid.length);
    return valid.slice(0, at) + String.fromCharCode(Math.floor(random() * 128)) +
      valid.slice(at + 1);
  }
  if (roll < 0.2) return JSON.stringify(randomValue(random));
  const message: Record<string, unknown> = {};
  if (random() < 0.9) message.jsonrpc = random() < 0.95 ? "2.0" : randomValue(random);
  if (random() < 0.85) {
    message.id = random() < 0.8 ? Math.floor(random() * 1e6) : randomValue(random);
  }
  message.method = random() < 0.9
    ? METHODS[Math.floor(random() * METHODS.length)]
    : randomValue(random);
  if (random() < 0.8) message.params = randomValue(random);
  return JSON.stringify(message);
}

function assertWellFormed(reply: unknown, frame: string): void {
  const where = `reply to ${frame.slice(0, 200)}`;
  assert.equal(typeof reply, "object", where);
  const r = reply as Record<string, unknown>;
  if (typeof r.method === "string" && !("id" in r)) return; // a notification
  if (!("jsonrpc" in r)) {
    // lootbox's shapes ({script}, {method: "ns.fn"} without "jsonrpc") get lootbox's replies.
    assert.ok(
      !frame.includes('"jsonrpc":"2.0"'),
      `${where}: a JSON-RPC request got a lootbox reply`,
    );
    assert.ok("id" in r && (("result" in r) !== ("error" in r)), where);
    return;
  }
  assert.equal(r.jsonrpc, "2.0", where);
  assert.ok("id" in r, where);
  assert.ok(("result" in r) !== ("error" in r), `${where}: exactly one of result and error`);
  if ("error" in r) {
    const error = r.error as Record<string, unknown>;
    assert.equal(typeof error.code, "number", where);
    assert.equal(typeof error.message, "string", where);
    assert.notEqual(
      error.code,
      -32603,
      `${where}: an internal error means an unhandled case: ${error.message}`,
    );
  }
}

Deno.test("random and mutated JSON-RPC messages get well-formed answers and never break the connection", async () => {
  const runs = Number(Deno.env.get("GATEWAY_FUZZ_RUNS") ?? 300);
  const seed = Number(Deno.env.get("GATEWAY_FUZZ_SEED") ?? 20261130);
  const random = prng(seed);
  await withHarness({
    files: { "gateway.json": '{ "port": 0, "exec": { "typecheck": false } }\n' },
  }, async (gw) => {
    const { port, token } = await gw.server();
    const socket = await RpcSocket.open(port, token);
    try {
      for (let i = 0; i < runs; i++) {
        const frame = randomFrame(random);
        socket.send(frame);
        // A sentinel after every frame: its answer proves the connection survived, and every
        // reply before it belongs to the fuzzed frame.
        socket.send(JSON.stringify({ jsonrpc: "2.0", id: `sentinel-${i}`, method: "namespaces" }));
        for (;;) {
          const reply = await socket.next(10_000) as Record<string, unknown>;
          assertWellFormed(reply, frame);
          if (reply.id === `sentinel-${i}`) break;
        }
        assert.equal(
          socket.closed,
          null,
          `connection closed after ${frame.slice(0, 200)} (seed ${seed})`,
        );
      }
    } finally {
      socket.close();
    }
    const health = await fetch(`http://127.0.0.1:${port}/health`);
    assert.equal(health.status, 200);
    await health.body?.cancel();
  });
});
