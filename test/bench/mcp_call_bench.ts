/**
 * Measures the cost of one MCP tool call: 300 sequential calls of server-everything's `echo`
 * over stdio, through the SDK client directly and through `McpNamespace`. Prints a JSON line per
 * path (median, p95, mean in ms). Run: `deno run -A test/bench/mcp_call_bench.ts [calls]`.
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

async function viaSdk(): Promise<number[]> {
  const client = new Client({ name: "mcp-call-bench", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: "node",
      args: [realServerBin("everything")],
      stderr: "pipe",
    }),
  );
  try {
    return await time(() => client.callTool({ name: "echo", arguments: { message: "bench" } }));
  } finally {
    await client.close();
  }
}

async function viaNamespace(): Promise<number[]> {
  const namespace = new McpNamespace("everything", realServerConfig("everything"));
  await namespace.start();
  try {
    const options = {
      signal: new AbortController().signal,
      callTimeoutMs: 60_000,
      callMaxMs: 600_000,
    };
    return await time(() => namespace.callTool("echo", { message: "bench" }, options));
  } finally {
    await namespace.stop();
  }
}

console.log(JSON.stringify(summarize("sdk-client", await viaSdk())));
console.log(JSON.stringify(summarize("mcp-namespace", await viaNamespace())));
