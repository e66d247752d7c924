/**
 * The scale bench: a synthetic upstream (one process serving N streamable-HTTP
 * MCP servers of M tools each, test/fixtures/mcp/synthetic_upstream.ts) behind a gateway at
 * 10, 500 and 2,000 tools. Prints, per size: start → `/health`, start → every namespace ready,
 * the gateway's resident memory (server + descendants, from /proc; the upstream is a process
 * of its own), `/types/NS`, `catalog`, `search` and one call — each should grow at most
 * linearly, with `search` and `/types` ≤ 5 ms at 2,000 tools. Run by bench.ts in a process of
 * its own.
 * @module
 */

import { join } from "node:path";
import { createHarness, REPO } from "../support/gateway_harness.ts";
import { GatewayClient } from "../../src/client/gateway_client.ts";
import { median, QUICK, target } from "./bench_support.ts";
import { processTreeMemory } from "./process_tree_memory.ts";

const UPSTREAM = join(REPO, "test/fixtures/mcp/synthetic_upstream.ts");
const SIZES = [
  { namespaces: 1, tools: 10 },
  { namespaces: 25, tools: 20 },
  { namespaces: 50, tools: 40 },
];
const REPEATS = QUICK ? 10 : 30;

async function startUpstream(namespaces: number, tools: number) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-net", "--no-prompt", UPSTREAM, String(namespaces), String(tools)],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the synthetic upstream ended before it listened");
    text += value;
  }
  reader.releaseLock();
  return { child, port: Number(text.trim()) };
}

async function medianMs(fn: () => Promise<unknown>): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  return median(times);
}

const cols = (values: (string | number)[]) =>
  values.map((v) => (typeof v === "number" ? v.toFixed(2) : v).padStart(11)).join("");

console.log(
  `scale: synthetic MCP upstream, ${SIZES.map((s) => `${s.namespaces}×${s.tools}`).join(" / ")}`,
);
console.log(
  `${"tools".padEnd(8)}${
    cols(["start→health", "→all ready", "memory MB", "/types/NS", "catalog", "search", "call"])
  }   (ms unless noted)`,
);
const results: { tools: number; types: number; search: number }[] = [];
for (const size of SIZES) {
  const upstream = await startUpstream(size.namespaces, size.tools);
  const mcpServers = Object.fromEntries(
    Array.from({ length: size.namespaces }, (_, i) => [
      `ns${i}`,
      { url: `http://127.0.0.1:${upstream.port}/ns${i}/mcp`, transport: "streamable-http" },
    ]),
  );
  const gw = await createHarness({ files: { "gateway.json": JSON.stringify({ mcpServers }) } });
  try {
    const t0 = performance.now();
    const started = await gw.cli(["start"]);
    if (started.code !== 0) throw new Error(`gateway start failed: ${started.stderr}`);
    const toHealth = performance.now() - t0;
    const { port, token, pid } = await gw.server();
    // A server busy starting many namespaces may take a while to accept the socket.
    const client = await GatewayClient.connect({
      host: "127.0.0.1",
      port,
      token,
      timeoutMs: 60_000,
    });
    let allReady = NaN;
    for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
      const { namespaces: list } = await client.request<{ namespaces: { status: string }[] }>(
        "namespaces",
        {},
      );
      if (list.length === size.namespaces && list.every((n) => n.status === "ready")) {
        allReady = performance.now() - t0;
        break;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    await new Promise((r) => setTimeout(r, 1000)); // let start-up garbage settle
    const memory = processTreeMemory(pid, { exclude: (c) => c.includes("synthetic_upstream") });
    const headers = { authorization: `Bearer ${token}` };
    const types = await medianMs(async () => {
      const response = await fetch(`http://127.0.0.1:${port}/types/ns0`, { headers });
      if (!response.ok) throw new Error(`/types/ns0: ${response.status}`);
      await response.text();
    });
    const catalog = await medianMs(() => client.request("catalog", {}));
    const search = await medianMs(() => client.request("search", { query: "create issue" }));
    const call = await medianMs(() =>
      client.request("call", { namespace: "ns0", tool: "create_issue_0", args: { id: "x" } })
    );
    await client.close();
    const tools = size.namespaces * size.tools;
    results.push({ tools, types, search });
    console.log(
      `${String(tools).padEnd(8)}${
        cols([toHealth, allReady, memory.mb.toFixed(0), types, catalog, search, call])
      }`,
    );
  } finally {
    await gw.dispose();
    upstream.child.kill("SIGTERM");
    await upstream.child.status;
  }
}
const largest = results.at(-1)!;
console.log(
  `  at ${largest.tools} tools: search ${largest.search.toFixed(2)} ms ${
    target("≤ 5 ms", largest.search <= 5)
  }, /types/NS ${largest.types.toFixed(2)} ms ${target("≤ 5 ms", largest.types <= 5)}`,
);
