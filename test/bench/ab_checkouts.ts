/**
 * `deno task bench:ab OTHER` — this checkout against another one (`OTHER`: a directory holding
 * another commit of this repository, its packages installed), run against run in one process.
 * A difference under a millisecond drowns in a machine's drift between two bench runs; here
 * each gateway is started from its own checkout and the two are measured alternately, so both
 * see the same machine, and the medians of the paired differences are printed:
 *
 * - a pooled run over RPC (`console.log(1 + 1)`, check off), with a pause before each run;
 * - bursts of 30 runs back to back, one gateway at a time (the pool refills during them);
 * - 2,000 sequential local calls in one script, per call;
 * - a run granted an environment variable: its runner is started for it, not taken from the pool.
 *
 * Make `OTHER` with `git worktree add --detach /tmp/other COMMIT`, then in it `deno install
 * --frozen` and a copy of `test/servers/node_modules`. `--quick` measures fewer rounds.
 * @module
 */

import {
  createHarness as createOwnHarness,
  type GatewayHarness,
} from "../support/gateway_harness.ts";
import type { GatewayClient } from "../../src/client/gateway_client.ts";
import { measurePaired } from "./bench_support.ts";

/** A gateway started from one checkout, with its client. */
interface Side {
  name: string;
  gateway: GatewayHarness;
  client: GatewayClient;
}

const ECHO = `/** Returns its argument. */
export function echo(args: { v: number }): number {
  return args.v;
}
`;
const CALLS = 2000;
const CALL_SCRIPT = `const t = performance.now();
for (let i = 0; i < ${CALLS}; i++) await tools.echo.echo({ v: i });
(performance.now() - t) / ${CALLS}`;

const other = Deno.args.find((arg) => !arg.startsWith("--"));
if (other === undefined) {
  console.error("usage: deno task bench:ab OTHER_CHECKOUT [--quick]");
  Deno.exit(2);
}
const quick = Deno.args.includes("--quick");

/** Starts a gateway from the checkout whose harness is `createHarness`. */
async function start(
  name: string,
  createHarness: typeof createOwnHarness,
): Promise<Side> {
  const gateway = await createHarness({
    files: {
      "gateway.json": JSON.stringify({
        exec: { maxToolCalls: CALLS + 10, maxPermissions: { env: ["HOME"] } },
      }),
      "tools/echo.ts": ECHO,
    },
  });
  return { name, gateway, client: await gateway.client() };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function runMs(side: Side, source: string, env?: string[]): Promise<number> {
  const started = performance.now();
  const doc = await side.client.request<{ ok: boolean; result?: unknown }>("exec", {
    source,
    check: false,
    ...(env ? { permissions: { env } } : {}),
  });
  if (!doc.ok) throw new Error(`${side.name}: the run failed: ${JSON.stringify(doc)}`);
  return performance.now() - started;
}

/** Measures `measure` on both sides in alternation and prints the row (this checkout − the other). */
async function paired(
  label: string,
  unit: string,
  rounds: number,
  [own, theirs]: [Side, Side],
  measure: (side: Side) => Promise<number>,
): Promise<void> {
  const result = await measurePaired(() => measure(theirs), () => measure(own), rounds, {
    alternate: true,
  });
  const f = (value: number) => value.toFixed(unit === "ms" ? 2 : 3);
  console.log(
    `${label.padEnd(58)} this ${f(result.candidate)} ${unit}  other ${f(result.baseline)} ` +
      `${unit}  paired difference ${f(result.difference)} ${unit} (${rounds} pairs)`,
  );
}

const theirModule = await import(`${other.replace(/\/$/, "")}/test/support/gateway_harness.ts`);
const own = await start("this checkout", createOwnHarness);
const theirs = await start(other, theirModule.createHarness as typeof createOwnHarness);
try {
  console.log(`this checkout against ${other} (one process, measured alternately)\n`);
  const sides: [Side, Side] = [own, theirs];
  await paired(
    "a pooled run over RPC, 100 ms pause before each",
    "ms",
    quick ? 30 : 80,
    sides,
    async (side) => {
      await pause(100);
      return await runMs(side, "console.log(1 + 1)");
    },
  );
  await paired("30 runs back to back, per run", "ms", quick ? 4 : 12, sides, async (side) => {
    await pause(600);
    const started = performance.now();
    for (let i = 0; i < 30; i++) await runMs(side, "console.log(1 + 1)");
    return (performance.now() - started) / 30;
  });
  await paired(
    `a local call (${CALLS} in one script), per call`,
    "ms",
    quick ? 4 : 8,
    sides,
    async (side) => {
      const doc = await side.client.request<{ ok: boolean; result?: number }>("exec", {
        source: CALL_SCRIPT,
        check: false,
      });
      if (!doc.ok || typeof doc.result !== "number") {
        throw new Error(`${side.name}: the call script failed: ${JSON.stringify(doc)}`);
      }
      return doc.result;
    },
  );
  await paired(
    "a run granted HOME (its runner started for it)",
    "ms",
    quick ? 10 : 40,
    sides,
    async (side) => {
      await pause(100);
      return await runMs(side, "console.log(1 + 1)", ["HOME"]);
    },
  );
} finally {
  await own.gateway.dispose();
  await theirs.gateway.dispose();
}
