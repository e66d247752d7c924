/**
 * What a user waits for after `gateway start` and on a cold first run:
 * each probe restarts the gateway (caches warm) and times, from the moment `gateway start` is
 * invoked, what the user does next — the CLI returning, `/health` clearing, a first trivial
 * run, a first local call, a first type-checked run, every namespace ready — each start paired
 * with a bare `deno run` in the same round, so a busy machine slows both alike. The cold rows
 * start from a fresh data dir, against the type checker's own cold start measured in the same
 * rounds. `deno run --allow-all test/bench/start_bench.ts [--quick]` prints them alone;
 * `BENCH_START_ROUNDS`, `BENCH_START_PROBES` (health,trivial,local,localNew,typed),
 * `BENCH_COLD_ROUNDS` and `BENCH_START_COLD=0` narrow it, `BENCH_START_JSON`/`BENCH_COLD_JSON` write the samples (to
 * compare builds, alternating one round of each). Targets are stated, never asserted.
 * @module
 */

import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import {
  createHarness,
  type GatewayHarness,
  REPO,
  type RootFiles,
} from "../support/gateway_harness.ts";
import { median, QUICK, row, target } from "./bench_support.ts";
import { ScriptCheckerWorker } from "../../src/exec/script_checker_worker.ts";

/** server-everything's entry, when the test servers are installed. */
export const EVERYTHING = join(
  REPO,
  "test/servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
);

/** What the start probes need: the harness, a bare `deno run`, and whether there is an MCP. */
export interface StartProbeOptions {
  gw: GatewayHarness;
  /** One bare `deno run` of a one-line file: the baseline each start is paired with. */
  bareRun: () => Promise<unknown>;
  /** Starts per probe (each paired with a bare run). */
  rounds: number;
  /** The root has an `everything` MCP namespace. */
  hasMcp: boolean;
  /** Only these probes (`health`, `trivial`, `local`, `localNew`, `typed`); absent = all. */
  probes?: readonly string[];
}

/** Milliseconds from `gateway start` invoked, per probe, and the bare runs beside them. */
export interface StartSamples {
  bare: number[];
  cli: number[];
  cleared: number[];
  trivial: number[];
  local: number[];
  /** A local call whose argument's shape was never checked: it waits for the type checker. */
  localNew: number[];
  typed: number[];
  everyReady: number[];
}

interface Health {
  starting?: boolean;
  namespaces: { name: string; kind: string; status: string }[];
}

async function health(gw: GatewayHarness): Promise<Health> {
  const { port, token } = await gw.server();
  const response = await fetch(`http://127.0.0.1:${port}/health`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return await response.json() as Health;
}

/** Stops the gateway and starts it again; answers when `gateway start` was invoked. */
export async function restart(gw: GatewayHarness): Promise<number> {
  const stopped = await gw.cli(["stop"]);
  if (stopped.code !== 0) throw new Error(`gateway stop failed: ${stopped.stderr}`);
  const startedAt = performance.now();
  const started = await gw.cli(["start"]);
  if (started.code !== 0) throw new Error(`gateway start failed: ${started.stderr}`);
  return startedAt;
}

/** Runs `gateway exec ARGS` and checks it printed `expected`. */
async function execExpecting(gw: GatewayHarness, args: string[], expected: string) {
  const result = await gw.cli(["exec", ...args]);
  if (result.stdout !== expected) {
    throw new Error(`gateway exec ${args.join(" ")} failed: ${result.stdout}${result.stderr}`);
  }
}

/**
 * Fills a new root's caches before the probes: a first start extracts the modules'
 * signatures, fetches Deno's declarations and asks the upstream its protocol era, and the
 * local call the probes make has its argument's shape checked (and kept). Every namespace is
 * ready before it answers.
 */
export async function warmUpRoot(gw: GatewayHarness): Promise<void> {
  await execExpecting(gw, ["1 + 1"], "2\n");
  await watchHealth(gw, performance.now());
  await execExpecting(gw, ["--no-check", "await tools.echo.echo({ v: 2 })"], "2\n");
}

/**
 * Polls `/health` every 5 ms from `startedAt` and records when `starting` cleared (the server's
 * parts up and every local module ready: all that is left is upstreams) and when every
 * namespace was ready.
 */
export async function watchHealth(
  gw: GatewayHarness,
  startedAt: number,
): Promise<{ cleared: number; everyReady: number }> {
  let cleared = NaN;
  for (;;) {
    const now = await health(gw);
    const at = performance.now() - startedAt;
    const own = now.namespaces.filter((ns) => ns.kind === "local");
    if (
      Number.isNaN(cleared) && now.starting !== true && own.every((ns) => ns.status !== "starting")
    ) {
      cleared = at;
    }
    if (now.starting !== true && now.namespaces.every((ns) => ns.status === "ready")) {
      return { cleared, everyReady: at };
    }
    if (at > 60_000) {
      throw new Error(`not every namespace was ready within 60 s: ${JSON.stringify(now)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Restarts the gateway `rounds` times per probe and times what follows each `gateway start`
 * (see the module doc); one bare `deno run` before each start.
 */
export async function measureStarts(options: StartProbeOptions): Promise<StartSamples> {
  const { gw, bareRun } = options;
  const samples: StartSamples = {
    bare: [],
    cli: [],
    cleared: [],
    trivial: [],
    local: [],
    localNew: [],
    typed: [],
    everyReady: [],
  };
  const timeBare = async () => {
    const start = performance.now();
    await bareRun();
    samples.bare.push(performance.now() - start);
  };
  const probes: Record<string, () => Promise<void>> = {
    health: async () => {
      const startedAt = await restart(gw);
      samples.cli.push(performance.now() - startedAt);
      const seen = await watchHealth(gw, startedAt);
      samples.cleared.push(seen.cleared);
      samples.everyReady.push(seen.everyReady);
    },
    trivial: async () => {
      const startedAt = await restart(gw);
      await execExpecting(gw, ["--no-check", "1 + 1"], "2\n");
      samples.trivial.push(performance.now() - startedAt);
    },
    local: async () => {
      const startedAt = await restart(gw);
      await execExpecting(gw, ["--no-check", "await tools.echo.echo({ v: 2 })"], "2\n");
      samples.local.push(performance.now() - startedAt);
    },
    localNew: async () => {
      const startedAt = await restart(gw);
      await execExpecting(gw, ["--no-check", "await tools.math.add({ a: 1, b: 1 })"], "2\n");
      samples.localNew.push(performance.now() - startedAt);
    },
    typed: async () => {
      const startedAt = await restart(gw);
      await execExpecting(gw, ["1 + 1"], "2\n");
      samples.typed.push(performance.now() - startedAt);
    },
  };
  const only = options.probes;
  for (let round = 0; round < options.rounds; round++) {
    for (const [name, probe] of Object.entries(probes)) {
      if (only !== undefined && !only.includes(name)) continue;
      await timeBare();
      await probe();
    }
  }
  return samples;
}

/** Prints the start rows from `samples`. */
export function printStartRows(samples: StartSamples, hasMcp: boolean): void {
  const bare = median(samples.bare);
  const note = (values: number[], text = "") =>
    `${(median(values) / bare).toFixed(1)}× bare (median of ${values.length} starts, each ` +
    `after a bare run; bare ${bare.toFixed(1)} ms)${text}`;
  console.log("\nafter `gateway start` (restart, caches warm; ms from `gateway start` invoked):");
  row("  `gateway start` returned", median(samples.cli), note(samples.cli));
  row(
    "  `starting` cleared (server up, every local module ready)",
    median(samples.cleared),
    note(samples.cleared),
  );
  const trivial = median(samples.trivial);
  row(
    "  first trivial run answered (`exec --no-check '1 + 1'`)",
    trivial,
    note(samples.trivial, ` ${target("≤ 500 ms", trivial <= 500)}`),
  );
  const local = median(samples.local);
  row(
    "  first local call answered (`--no-check` echo, shape checked before)",
    local,
    note(samples.local, ` ${target("≤ 500 ms", local <= 500)}`),
  );
  row(
    "    … a shape never checked (math.add: waits for the checker)",
    median(samples.localNew),
    note(samples.localNew),
  );
  row(
    "  first type-checked run answered (`exec '1 + 1'`)",
    median(samples.typed),
    note(samples.typed, " (the type checker's first start: see the cold rows)"),
  );
  row(
    `  every namespace ready${hasMcp ? " (everything's tools listed)" : ""}`,
    median(samples.everyReady),
    note(samples.everyReady),
  );
}

/** Milliseconds of the cold path, with the type checker's own start beside it. */
export interface ColdSamples {
  /** `gateway exec '1 + 1'` on a fresh data dir with no server (autostart included). */
  cold: number[];
  /** The type checker's own cold start: an empty cache, TypeScript loaded, one line checked. */
  coldFloor: number[];
  /** A typed run of a new snippet once the checker has idled out (`exec.checkerIdleMs`). */
  afterIdle: number[];
  /** The type checker's own start with its cache warm (what a restart after idling costs). */
  warmFloor: number[];
}

/**
 * The type checker started as the gateway starts it (a process of its own), timed from its
 * spawn until it has answered one check of `1 + 1`; `cacheDir` empty = `deno types` too.
 */
export async function checkerStartMs(cacheDir: string): Promise<number> {
  const started = performance.now();
  const checker = ScriptCheckerWorker.start({ cacheDir });
  try {
    const diagnostics = await checker.check("1 + 1");
    if (diagnostics.length > 0) {
      throw new Error(`the checker refused 1 + 1: ${diagnostics[0]!.message}`);
    }
    return performance.now() - started;
  } finally {
    await checker.close();
  }
}

/**
 * The cold path, `rounds` times, each sample beside its floor in the same round: a fresh
 * data dir's first `gateway exec '1 + 1'` (the server autostarted, Deno's declarations
 * fetched, the checker's first start) against the checker's own start on an empty cache; and a
 * typed run after the checker idled out against the checker's own start on a warm cache.
 */
export async function measureCold(files: RootFiles, rounds: number): Promise<ColdSamples> {
  const samples: ColdSamples = { cold: [], coldFloor: [], afterIdle: [], warmFloor: [] };
  const idleFiles = {
    ...files,
    "gateway.json": JSON.stringify({
      ...JSON.parse(files["gateway.json"] ?? "{}"),
      exec: { ...JSON.parse(files["gateway.json"] ?? "{}").exec, checkerIdleMs: 1000 },
    }),
  };
  const idle = await createHarness({ files: idleFiles });
  try {
    await execExpecting(idle, ["1 + 1"], "2\n");
    await watchHealth(idle, performance.now());
    for (let round = 0; round < rounds; round++) {
      const scratch = await Deno.makeTempDir({ prefix: "gateway-cold-floor-" });
      try {
        samples.coldFloor.push(await checkerStartMs(scratch));
      } finally {
        await Deno.remove(scratch, { recursive: true });
      }
      const gw = await createHarness({ files });
      try {
        const startedAt = performance.now();
        await execExpecting(gw, ["1 + 1"], "2\n");
        samples.cold.push(performance.now() - startedAt);
      } finally {
        await gw.dispose();
      }
      samples.warmFloor.push(await checkerStartMs(join(idle.dataDir, "cache")));
      // Past exec.checkerIdleMs (1 s here) the checker's process is gone; the run is new.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      const startedAt = performance.now();
      await execExpecting(idle, [`${round} + 2`], `${round + 2}\n`);
      samples.afterIdle.push(performance.now() - startedAt);
    }
  } finally {
    await idle.dispose();
  }
  return samples;
}

/** Prints the cold rows from `samples`. */
export function printColdRows(samples: ColdSamples): void {
  const cold = median(samples.cold);
  const coldFloor = median(samples.coldFloor);
  console.log(
    "\ncold (type-checked `gateway exec '1 + 1'`; the floor: the type checker's own start):",
  );
  row(
    "  fresh data dir, no server: first run answered",
    cold,
    `floor ${coldFloor.toFixed(0)} ms (its start on an empty cache), median of ` +
      `${samples.cold.length} ${target("≤ floor + 500 ms", cold <= coldFloor + 500)}`,
  );
  const afterIdle = median(samples.afterIdle);
  const warmFloor = median(samples.warmFloor);
  row(
    "  after the checker idled out (exec.checkerIdleMs)",
    afterIdle,
    `floor ${warmFloor.toFixed(0)} ms (its start, cache warm), median of ` +
      `${samples.afterIdle.length} ${target("≤ floor + 100 ms", afterIdle <= warmFloor + 100)}`,
  );
}

/**
 * An MCP upstream's own start, with no gateway: server-everything spawned under node by the
 * SDK's client, initialised and its tools listed. Median of `rounds`.
 */
export async function upstreamStartMs(rounds: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = performance.now();
    const client = new Client({ name: "bench", version: "1" });
    await client.connect(
      new StdioClientTransport({ command: "node", args: [EVERYTHING, "stdio"], stderr: "ignore" }),
    );
    await client.listTools();
    times.push(performance.now() - start);
    await client.close();
  }
  return median(times);
}

if (import.meta.main) {
  const hasEverything = await Deno.stat(EVERYTHING).then(() => true, () => false);
  const files: RootFiles = {
    "gateway.json": JSON.stringify({
      exec: { poolSize: 2 },
      ...(hasEverything
        ? { mcpServers: { everything: { command: "node", args: [EVERYTHING, "stdio"] } } }
        : {}),
    }),
    "tools/kv.ts": await Deno.readTextFile(join(REPO, "tools/kv.ts")),
    "tools/echo.ts":
      "/** Returns its argument. */\nexport function echo(args: { v: number }): number {\n  return args.v;\n}\n",
    "tools/math.ts":
      "/** Adds two numbers. */\nexport function add(args: { a: number; b: number }): number {\n  return args.a + args.b;\n}\n",
    "tools/text.ts":
      "/** Upper-cases a string. */\nexport function upper(args: { s: string }): string {\n  return args.s.toUpperCase();\n}\n",
    "tools/clock.ts":
      "/** The time now, in ms since the epoch. */\nexport function now(): number {\n  return Date.now();\n}\n",
  };
  const scratch = await Deno.makeTempDir({ prefix: "gateway-start-bench-" });
  const oneLine = join(scratch, "one.ts");
  await Deno.writeTextFile(oneLine, "console.log(1 + 1);\n");
  const bareRun = () =>
    new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-config", "--quiet", oneLine],
      stdout: "null",
    }).output();
  const gw = await createHarness({ files });
  try {
    await warmUpRoot(gw);
    const samples = await measureStarts({
      gw,
      bareRun,
      rounds: Number(Deno.env.get("BENCH_START_ROUNDS") ?? (QUICK ? 3 : 5)),
      hasMcp: hasEverything,
      ...(Deno.env.get("BENCH_START_PROBES")
        ? { probes: Deno.env.get("BENCH_START_PROBES")!.split(",") }
        : {}),
    });
    printStartRows(samples, hasEverything);
    // For comparisons across builds: a driver alternates one round of each.
    const json = Deno.env.get("BENCH_START_JSON");
    if (json) await Deno.writeTextFile(json, JSON.stringify(samples));
    if (hasEverything) {
      row("  everything's own start, no gateway (SDK client)", await upstreamStartMs(3));
    }
    if (Deno.env.get("BENCH_START_COLD") !== "0") {
      const cold = await measureCold(
        files,
        Number(Deno.env.get("BENCH_COLD_ROUNDS") ?? (QUICK ? 3 : 5)),
      );
      printColdRows(cold);
      const json = Deno.env.get("BENCH_COLD_JSON");
      if (json) await Deno.writeTextFile(json, JSON.stringify(cold));
    }
  } finally {
    await gw.dispose();
    await Deno.remove(scratch, { recursive: true });
  }
}
