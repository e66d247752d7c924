/**
 * `deno task bench:instances`: 1,000 runs (`BENCH_INSTANCE_RUNS`) spread over three gateway
 * instances on one PostgreSQL database against the same runs on one instance with SQLite,
 * runs/s and p99 latency printed side by side. Measured, never asserted.
 * @module
 */

import { createHarness, type GatewayHarness } from "../support/gateway_harness.ts";
import { startPostgresCluster } from "../support/postgres_cluster.ts";
import type { GatewayClient } from "../../src/client/gateway_client.ts";
import type { RunDocument } from "../../src/protocol/run_document.ts";

const RUNS = Number(Deno.env.get("BENCH_INSTANCE_RUNS") ?? 1000);
/** Runs in flight at once, across all instances. */
const CONCURRENCY = Number(Deno.env.get("BENCH_INSTANCE_CONCURRENCY") ?? 24);
const EXEC = { typecheck: false, poolSize: 2, maxConcurrentRuns: 8 };

interface Result {
  label: string;
  runsPerSecond: number;
  p50: number;
  p99: number;
  failed: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
}

async function drive(label: string, clients: GatewayClient[]): Promise<Result> {
  // Warm-up: every instance has its runner pool and history path going.
  await Promise.all(clients.map((c) => c.request<RunDocument>("exec", { source: "0" })));
  const latencies: number[] = [];
  let next = 0;
  let failed = 0;
  const start = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async (_, worker) => {
    for (;;) {
      const i = next++;
      if (i >= RUNS) return;
      const client = clients[(worker + i) % clients.length]!;
      const t0 = performance.now();
      const doc = await client.request<RunDocument>("exec", { source: `${i} + 1` });
      latencies.push(performance.now() - t0);
      if (!doc.ok || doc.history !== "saved") failed++;
    }
  }));
  const seconds = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    label,
    runsPerSecond: RUNS / seconds,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    failed,
  };
}

async function measure(
  label: string,
  count: number,
  env: Record<string, string>,
  store: Record<string, unknown> | null,
): Promise<Result> {
  const instances: GatewayHarness[] = [];
  const clients: GatewayClient[] = [];
  try {
    const config = JSON.stringify({ exec: EXEC, ...(store ? { store } : {}) });
    for (let i = 0; i < count; i++) {
      const gw = await createHarness({ files: { "gateway.json": config }, env });
      instances.push(gw);
      clients.push(await gw.client());
    }
    return await drive(label, clients);
  } finally {
    for (const client of clients) client.close();
    for (const gw of instances) await gw.dispose();
  }
}

const cluster = await startPostgresCluster();
try {
  console.log(
    `gateway instances bench: ${RUNS} runs, ${CONCURRENCY} in flight, ` +
      `deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores (all instances share them)\n`,
  );
  const results = [
    await measure("1 instance, SQLite", 1, {}, null),
    await measure("3 instances, one PostgreSQL", 3, { DATABASE_URL: cluster.url }, {
      postgres: "${env:DATABASE_URL}",
      poolSize: 10,
    }),
  ];
  console.log(
    `${"setup".padEnd(30)} ${"runs/s".padStart(8)} ${"p50 ms".padStart(9)} ${
      "p99 ms".padStart(9)
    } ${"failed".padStart(7)}`,
  );
  for (const r of results) {
    console.log(
      `${r.label.padEnd(30)} ${r.runsPerSecond.toFixed(1).padStart(8)} ${
        r.p50.toFixed(1).padStart(9)
      } ${r.p99.toFixed(1).padStart(9)} ${String(r.failed).padStart(7)}`,
    );
  }
} finally {
  await cluster.stop();
}
