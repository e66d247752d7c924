/**
 * Measures the cost of one MCP tool call: 300 sequential calls of server-everything's `echo`
 * over stdio, through the SDK client directly, through the SDK client sending a progress token
 * (as the gateway must: progress resets a call's timeout) and through `McpNamespace` (bare, and
 * with the dashboard's protocol log tapping its transport, as the gateway runs it). Rounds
 * alternate the paths; prints a JSON line per path (median, p95, mean in ms, this process's CPU
 * time per call and the upstream process's). Run:
 * `deno run -A test/bench/mcp_call_bench.ts [calls per round] [rounds]`.
 * @module
 */

import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { McpNamespace } from "../../src/namespaces/mcp/mcp_namespace.ts";
import { ProtocolLog } from "../../src/namespaces/mcp/protocol_log.ts";
import { realServerBin, realServerConfig } from "../fixtures/mcp/mcp_test_servers.ts";
import { cpuMs } from "./bench_support.ts";

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

/** An SDK client over its own server-everything, and the server's pid. */
async function sdkClient(): Promise<{ client: Client; pid: number }> {
  const client = new Client({ name: "mcp-call-bench", version: "1.0.0" });
  const transport = new StdioClientTransport({
    command: "node",
    args: [realServerBin("everything")],
    stderr: "pipe",
  });
  await client.connect(transport);
  return { client, pid: transport.pid! };
}

const sdk = await sdkClient();
const sdkProgress = await sdkClient();
const namespace = new McpNamespace("everything", realServerConfig("everything"));
await namespace.start();
// As the gateway runs it: every message also goes to the dashboard's protocol log.
const logged = new McpNamespace("everything", realServerConfig("everything"), {
  protocolLog: new ProtocolLog(),
});
await logged.start();
const options = { signal: new AbortController().signal, callTimeoutMs: 60_000, callMaxMs: 600_000 };
const echo = { name: "echo", arguments: { message: "bench" } };
const paths: Record<string, { call: () => Promise<unknown>; upstream: number }> = {
  "sdk-client": { call: () => sdk.client.callTool(echo), upstream: sdk.pid },
  "sdk-client-progress": {
    call: () =>
      sdkProgress.client.callTool(echo, {
        onprogress: () => {},
        resetTimeoutOnProgress: true,
        timeout: options.callTimeoutMs,
        maxTotalTimeout: options.callMaxMs,
      }),
    upstream: sdkProgress.pid,
  },
  "mcp-namespace": {
    call: () => namespace.callTool("echo", { message: "bench" }, options),
    upstream: namespace.pid!,
  },
  "mcp-namespace-logged": {
    call: () => logged.callTool("echo", { message: "bench" }, options),
    upstream: logged.pid!,
  },
};
// Rounds alternate the paths, so a busy machine slows them alike.
const samples: Record<string, number[]> = {};
const cpu: Record<string, { self: number; upstream: number }> = {};
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const [via, { call, upstream }] of Object.entries(paths)) {
      const before = { self: cpuMs(), upstream: cpuMs(upstream) };
      (samples[via] ??= []).push(...await time(call));
      const used = (cpu[via] ??= { self: 0, upstream: 0 });
      used.self += cpuMs() - before.self;
      used.upstream += cpuMs(upstream) - before.upstream;
    }
  }
} finally {
  await namespace.stop();
  await logged.stop();
  await sdk.client.close();
  await sdkProgress.client.close();
}
const perCall = (ms: number) => Math.round(ms / (ROUNDS * (CALLS + WARM_UP)) * 1000) / 1000;
for (const via of Object.keys(paths)) {
  console.log(
    JSON.stringify({
      ...summarize(via, samples[via]!),
      cpuMsPerCall: perCall(cpu[via]!.self),
      upstreamCpuMsPerCall: perCall(cpu[via]!.upstream),
    }),
  );
}
