/**
 * `deno task bench`: the gateway's speed against baselines measured in the same process —
 * bare `deno run`, a cold `deno check`, a direct MCP SDK client — printed as medians and
 * ratios. Targets are stated, never asserted (speed is measured, not tested).
 * @module
 */

import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createHarness, REPO } from "../support/gateway_harness.ts";
import type { RunDocument } from "../../src/protocol/run_document.ts";
import { buildCatalog } from "../../src/discovery/catalog.ts";
import { SearchIndex } from "../../src/discovery/search.ts";
import { syntheticSnapshot } from "../../src/discovery/synthetic_snapshot.ts";

const RUNS = Number(Deno.env.get("BENCH_RUNS") ?? 10);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function timeMs(
  fn: () => Promise<unknown>,
  runs = RUNS,
  options: { pauseMs?: number } = {},
): Promise<number> {
  await fn(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    if (options.pauseMs) await new Promise((r) => setTimeout(r, options.pauseMs));
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  return median(times);
}

function row(label: string, ms: number, note = ""): void {
  console.log(`${label.padEnd(58)} ${ms.toFixed(2).padStart(9)} ms${note ? `  ${note}` : ""}`);
}

const EVERYTHING = join(
  REPO,
  "test/servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
);
const hasEverything = await Deno.stat(EVERYTHING).then(() => true, () => false);

const gw = await createHarness({
  files: {
    "gateway.json": JSON.stringify({
      exec: { poolSize: 2, maxToolCalls: 5000 },
      ...(hasEverything
        ? { mcpServers: { everything: { command: "node", args: [EVERYTHING, "stdio"] } } }
        : {}),
    }),
    "tools/kv.ts": await Deno.readTextFile(join(REPO, "tools/kv.ts")),
    "tools/echo.ts":
      "/** Returns its argument. */\nexport function echo(args: { v: number }): number {\n  return args.v;\n}\n",
  },
});
try {
  const scratch = await Deno.makeTempDir({ prefix: "gateway-bench-" });
  const oneLine = join(scratch, "one.ts");
  await Deno.writeTextFile(oneLine, "console.log(1 + 1);\n");

  console.log(
    `gateway bench (median of ${RUNS}, deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores)\n`,
  );

  const bare = await timeMs(async () => {
    await new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-config", "--quiet", oneLine],
      stdout: "null",
    }).output();
  });
  row("bare `deno run` of a one-line file", bare, "(baseline)");

  const client = await gw.client();
  await client.request("exec", { source: "1", check: false });
  const exec = async (source: string, check: boolean) => {
    const doc = await client.request<RunDocument>("exec", { source, check });
    if (!doc.ok) throw new Error(`bench run failed: ${JSON.stringify(doc.error)}`);
    return doc;
  };
  // An agent thinks between runs; the pool refills in that pause. Back to back, each run also
  // pays for starting the next runner on the same two cores.
  const rpc = await timeMs(() => exec("console.log(1 + 1)", false), RUNS, { pauseMs: 150 });
  row(
    "gateway exec over RPC, server warm, check off",
    rpc,
    `${(rpc / bare).toFixed(2)}× bare (target ≤ 1.0×)`,
  );
  const burst = await timeMs(() => exec("console.log(1 + 1)", false));
  row(
    "  … back to back (no pause: the pool refills during runs)",
    burst,
    `${(burst / bare).toFixed(2)}× bare`,
  );

  const cli = await timeMs(() => gw.cli(["exec", "--no-check", "console.log(1 + 1)"]));
  row(
    "`gateway exec` CLI process, server warm, check off",
    cli,
    `${(cli / bare).toFixed(2)}× bare`,
  );

  let n = 0;
  const checked = await timeMs(
    () => exec(`const v${n} = ${n++} + 1;\nconsole.log(v${n - 1})`, true),
    RUNS,
    { pauseMs: 150 },
  );
  row(
    "type-checked exec of a new script over RPC",
    checked,
    `${(checked / bare).toFixed(2)}× bare`,
  );

  let m = 0;
  const cold = await timeMs(async () => {
    const file = join(scratch, `check_${m++}.ts`);
    await Deno.writeTextFile(file, `const v: number = ${m};\nconsole.log(v);\n`);
    await new Deno.Command(Deno.execPath(), {
      args: ["check", "--no-config", "--quiet", file],
      stdout: "null",
      stderr: "null",
    }).output();
  }, Math.min(RUNS, 5));
  row("cold `deno check` of a new script", cold, "(baseline)");
  const checkOverhead = Math.max(checked - rpc, 0.01);
  console.log(
    `${"  check overhead (checked − unchecked exec) vs cold deno check".padEnd(58)} ${
      checkOverhead.toFixed(2).padStart(9)
    } ms  1/${(cold / checkOverhead).toFixed(0)} of cold (target ≤ 1/8); whole checked exec 1/${
      (cold / checked).toFixed(1)
    }`,
  );

  const calls = 2000;
  const perCall = await client.request<RunDocument>("exec", {
    source: `await tools.kv.set({ key: "bench", value: 1 });
const t0 = performance.now();
for (let i = 0; i < ${calls}; i++) await tools.kv.get({ key: "bench" });
(performance.now() - t0) / ${calls}`,
    check: false,
  });
  row(
    `local tool call (${calls} sequential tools.kv.get in one script)`,
    Number(perCall.result),
    "per call, including the kv module's SQLite read",
  );

  const echoCost = await client.request<RunDocument>("exec", {
    source: `const t0 = performance.now();
for (let i = 0; i < ${calls}; i++) await tools.echo.echo({ v: i });
(performance.now() - t0) / ${calls}`,
    check: false,
  });
  row(
    `local tool call, gateway cost only (${calls} × a tool that returns its argument)`,
    Number(echoCost.result),
    "per call (target ≤ 0.2 ms)",
  );

  if (hasEverything) {
    const echoCalls = 300;
    const inScript = await client.request<RunDocument>("exec", {
      source: `const times: number[] = [];
for (let i = 0; i < ${echoCalls}; i++) { const t = performance.now(); await tools.everything.echo({ message: "hi" }); times.push(performance.now() - t); }
times.sort((a, b) => a - b); times[Math.floor(times.length / 2)]`,
      check: false,
    });
    const sdk = new Client({ name: "bench", version: "1" });
    await sdk.connect(
      new StdioClientTransport({ command: "node", args: [EVERYTHING, "stdio"], stderr: "ignore" }),
    );
    const direct: number[] = [];
    for (let i = 0; i < echoCalls; i++) {
      const t = performance.now();
      await sdk.callTool({ name: "echo", arguments: { message: "hi" } });
      direct.push(performance.now() - t);
    }
    await sdk.close();
    const sdkMedian = median(direct);
    row(`direct SDK client everything.echo (${echoCalls} calls)`, sdkMedian, "per call (baseline)");
    row(
      `everything.echo from a script (${echoCalls} calls)`,
      Number(inScript.result),
      `per call, ${(Number(inScript.result) / sdkMedian).toFixed(2)}× direct`,
    );
  } else {
    console.log(
      "(server-everything not installed: run deno task test once to install test/servers)",
    );
  }
  await client.close();

  // Cold: no server running, so `gateway exec` starts one (the data dir's caches are warm).
  const coldRuns = RUNS;
  const coldTimes: number[] = [];
  for (let i = 0; i < coldRuns; i++) {
    await gw.cli(["stop"]);
    const start = performance.now();
    const result = await gw.cli(["exec", "1 + 1"]);
    coldTimes.push(performance.now() - start);
    if (result.stdout !== "2\n") throw new Error(`cold exec failed: ${result.stderr}`);
  }
  row(
    `\`gateway exec '1 + 1'\` with no server running (autostart, ${coldRuns} runs)`,
    median(coldTimes),
  );
  const warmTimes: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    await gw.cli(["exec", "1 + 1"]);
    warmTimes.push(performance.now() - start);
  }
  row("`gateway exec '1 + 1'` with the server warm (type-checked)", median(warmTimes));

  const snapshot = syntheticSnapshot({ namespaces: 20, toolsPerNamespace: 100 });
  const index = new SearchIndex(snapshot);
  const catalog = await timeMs(() => Promise.resolve(buildCatalog(index.entries)), 50);
  row("catalogue over 2,000 tools (warm)", catalog, "(target ≤ 5 ms)");
  const search = await timeMs(() => Promise.resolve(index.search("create issue")), 50);
  row("search over 2,000 tools (warm)", search, "(target ≤ 5 ms)");
  // API namespaces at scale, in a process of their own so its memory figures are its own.
  console.log("");
  await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--no-prompt", join(REPO, "test/bench/openapi_bench.ts")],
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  await Deno.remove(scratch, { recursive: true });
} finally {
  await gw.dispose();
}
