/**
 * Measures the cost of one MCP tool call: 300 sequential calls of server-everything's `echo`
 * over stdio, through the SDK client directly and through `McpNamespace`. Rounds alternate the
 * paths; prints a JSON line per path (median, p95, mean in ms, and this process's CPU time per
 * call, server and client side both in it). Run:
 * `deno run -A test/bench/mcp_call_bench.ts [calls per round] [rounds]`.
 * @module
 */

import * as stdioModule from "@modelcontextprotocol/sdk/client/stdio.js";
import type * as StdioTyped from "@modelcontextprotocol/sdk/client/stdio";
import { Client } from "@modelcontextprotocol/sdk/client";
import { McpNamespace } from "../../src/namespaces/mcp/mcp_namespace.ts";
import { realServerBin, realServerConfig } from "../fixtures/mcp/mcp_test_servers.ts";

const { StdioClientTransport } = stdioModule as typeof StdioTyped;
const CALLS = Number(Deno.args[0] ?? "300");
const WARM_UP = 20;
const ROUNDS = Number(Deno.args[1] ?? "5");

/** Median, 95th percentile and mean of `samples` (ms), rounded to microseconds. */
function summarize(via: string, samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const round = (ms: number) => Math.round(ms * 1000) / 1000;
  return {
    bench: "mcp_call",
    via,
    calls: samples.length,
    medianMs: round(at(0.5)),
    p95Ms: round(at(0.95)),
    meanMs: round(samples.reduce((sum, ms) => sum + ms, 0) / samples.length),
  };
}

async function time(call: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < WARM_UP; i++) await call();
  const samples: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const started = performance.now();
    await call();
    samples.push(performance.now() - started);
  }
  return samples;
}

/** CPU time (user + system) this process has used, in ms. */
function cpuMs(): number {
  const stat = Deno.readTextFileSync("/proc/self/stat");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const sdk = new Client({ name: "mcp-call-bench", version: "1.0.0" });
await sdk.connect(
  new StdioClientTransport({
    command: "node",
    args: [realServerBin("everything")],
    stderr: "pipe",
  }),
);
const namespace = new McpNamespace("everything", realServerConfig("everything"));
await namespace.start();
const options = { signal: new AbortController().signal, callTimeoutMs: 60_000, callMaxMs: 600_000 };
const paths: Record<string, () => Promise<unknown>> = {
  "sdk-client": () => sdk.callTool({ name: "echo", arguments: { message: "bench" } }),
  "mcp-namespace": () => namespace.callTool("echo", { message: "bench" }, options),
};
// Rounds alternate the two paths, so a busy machine slows both alike.
const samples: Record<string, number[]> = { "sdk-client": [], "mcp-namespace": [] };
const cpu: Record<string, number> = { "sdk-client": 0, "mcp-namespace": 0 };
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const [via, call] of Object.entries(paths)) {
      const before = cpuMs();
      samples[via]!.push(...await time(call));
      cpu[via]! += cpuMs() - before;
    }
  }
} finally {
  await namespace.stop();
  await sdk.close();
}
for (const via of Object.keys(paths)) {
  const perCall = cpu[via]! / (ROUNDS * (CALLS + WARM_UP));
  console.log(
    JSON.stringify({
      ...summarize(via, samples[via]!),
      cpuMsPerCall: Math.round(perCall * 1000) / 1000,
    }),
  );
}
