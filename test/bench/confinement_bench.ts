/**
 * What the gateway's confinement costs, measured in one process against the same gateway
 * without it: the operating-system sandbox (`exec.osSandbox`, bubblewrap here) per run from the
 * warm pool and per local tool call, each alternated with a gateway set to "off" (which still
 * starts runners through setpriv's parent-death signal), and bwrap's own CPU; the CPU of one call with a 15 MB
 * argument and a 15 MB result; and the memory of five tool modules in the shared host against
 * five isolated (what one process per module, the way to keep a module's memory from taking
 * the others down, would cost).
 * @module
 */

import { createHarness, type GatewayHarness, type RootFiles } from "../support/gateway_harness.ts";
import type { RunDocument } from "../../src/protocol/run_document.ts";
import { findOsSandboxTools } from "../../src/process/os_sandbox.ts";
import { pollUntil } from "../support/poll_until.ts";
import { median, row, valueRow } from "./bench_support.ts";
import { describeTotal, describeTree, processTreeMemory } from "./process_tree_memory.ts";
import { procStatFields } from "../../src/process/proc_stat.ts";
import { bwrapArgs } from "../../src/process/bwrap_args.ts";
import { privateDirectories } from "../../src/process/sandbox_view.ts";
import { dirname } from "node:path";

const ECHO = `/** Returns its argument. */
export function echo(args: { v: string }): string {
  return args.v;
}
`;

/**
 * CPU of a process itself, all its threads (a tool host's Workers are threads), in ms: from
 * /proc/PID/task/TID/schedstat (nanoseconds on the CPU) where the kernel has it, else utime +
 * stime (10 ms ticks, too coarse for one short process).
 */
function cpuOwnMs(pid: number): number {
  try {
    let ns = 0;
    for (const task of Deno.readDirSync(`/proc/${pid}/task`)) {
      ns += Number(Deno.readTextFileSync(`/proc/${pid}/task/${task.name}/schedstat`).split(" ")[0]);
    }
    return ns / 1e6;
  } catch {
    const fields = procStatFields(pid);
    return fields === null ? NaN : (Number(fields[11]) + Number(fields[12])) * 10;
  }
}

interface Side {
  gw: GatewayHarness;
  pid: number;
  exec(source: string): Promise<RunDocument>;
  close(): void;
}

async function startSide(osSandbox: "auto" | "off", files: RootFiles): Promise<Side> {
  const config = JSON.parse(files["gateway.json"] ?? "{}");
  const gw = await createHarness({
    files: {
      ...files,
      "gateway.json": JSON.stringify({ ...config, exec: { ...config.exec, osSandbox } }),
    },
  });
  const client = await gw.client();
  const { pid } = await gw.server();
  const exec = async (source: string) => {
    const doc = await client.request<RunDocument>("exec", { source, check: false });
    if (!doc.ok) throw new Error(`bench run failed: ${JSON.stringify(doc.error)}`);
    return doc;
  };
  return { gw, pid, exec, close: () => client.close() };
}

/**
 * CPU of bwrap's own two processes (the one the gateway starts and the reaper that is the first
 * process of the namespace) for one program started with a runner's view: read from /proc while
 * the program sleeps, since a namespace's processes are not counted to their waiting parent.
 */
async function bwrapOwnCpuMs(bwrap: string, runs: number): Promise<number> {
  const view = {
    read: [],
    write: [],
    hidden: [],
    private: privateDirectories(),
    masked: [],
    own: [dirname(Deno.realPathSync(Deno.execPath()))],
    ownWritable: [],
    scratch: [],
    net: false,
    cwd: "/",
  };
  const sleep = ["/usr/bin/sleep", "/bin/sleep"].find((path) => {
    try {
      return Deno.statSync(path).isFile;
    } catch {
      return false;
    }
  }) ?? "sleep";
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const child = new Deno.Command(bwrap, {
      args: [...bwrapArgs(view), "--", sleep, "0.5"],
      stdout: "null",
      stderr: "null",
    }).spawn();
    await new Promise((r) => setTimeout(r, 250));
    const reaper = Number(
      Deno.readTextFileSync(`/proc/${child.pid}/task/${child.pid}/children`).trim().split(" ")[0],
    );
    samples.push(cpuOwnMs(child.pid) + cpuOwnMs(reaper));
    await child.status;
  }
  return median(samples);
}

/**
 * The OS sandbox against "off": wall time per trivial run and time per local call (the two
 * gateways in turn), the CPU the server spends per run, the runner's own CPU as it reads it
 * at its last line, and bwrap's own CPU per process it starts (the CPU of processes inside a
 * PID namespace is not counted to the server that waits for bwrap, so it is read apart).
 */
export async function measureOsSandboxCost(runs: number, rounds: number): Promise<void> {
  const tools = await findOsSandboxTools();
  if (tools.sandbox.kind !== "bwrap") {
    console.log(`OS sandbox: not measured (${tools.sandbox.kind ?? tools.sandbox.why})`);
    return;
  }
  const files: RootFiles = {
    "gateway.json": JSON.stringify({ port: 0, exec: { poolSize: 2, maxToolCalls: 5000 } }),
    "tools/echo.ts": ECHO,
  };
  const sides = { auto: await startSide("auto", files), off: await startSide("off", files) };
  try {
    const times = { auto: [] as number[], off: [] as number[] };
    const serverCpu = { auto: [] as number[], off: [] as number[] };
    const runnerCpu = { auto: [] as number[], off: [] as number[] };
    const calls = { auto: [] as number[], off: [] as number[] };
    const callScript = `for (let i = 0; i < 20; i++) await tools.echo.echo({ v: "x" });
      const start = performance.now();
      for (let i = 0; i < 300; i++) await tools.echo.echo({ v: "x" });
      (performance.now() - start) / 300`;
    const cpuScript = "const used = process.cpuUsage();\n(used.user + used.system) / 1000";
    for (const side of Object.values(sides)) {
      await side.exec("1");
      await side.exec(callScript);
    }
    for (let round = 0; round < rounds; round++) {
      for (const name of ["auto", "off"] as const) {
        const side = sides[name];
        const before = cpuOwnMs(side.pid);
        for (let i = 0; i < runs; i++) {
          // An agent thinks between runs: the pool refills in the pause.
          await new Promise((r) => setTimeout(r, 150));
          const start = performance.now();
          await side.exec("console.log(1 + 1)");
          times[name].push(performance.now() - start);
        }
        // The last refill's spawn is part of the runs' cost: let it finish.
        await new Promise((r) => setTimeout(r, 300));
        serverCpu[name].push((cpuOwnMs(side.pid) - before) / runs);
        for (let i = 0; i < runs; i++) {
          await new Promise((r) => setTimeout(r, 150));
          runnerCpu[name].push(Number((await side.exec(cpuScript)).result));
        }
        // Once the refills those runs started are done: calls alone on the machine.
        await new Promise((r) => setTimeout(r, 1_000));
        calls[name].push(Number((await side.exec(callScript)).result));
      }
    }
    const compare = (label: string, values: { auto: number[]; off: number[] }, digits = 2) => {
      const auto = median(values.auto);
      const off = median(values.off);
      row(label, auto, `vs ${off.toFixed(digits)} ms off: ${(auto - off).toFixed(digits)} ms more`);
    };
    console.log("the OS sandbox (bubblewrap) against exec.osSandbox off, alternated:");
    compare("  a run from the warm pool, over RPC (check off)", times);
    compare("  the server's own CPU per run (its spawns included)", serverCpu);
    compare("  the runner's own CPU, start to its last line", runnerCpu);
    row(
      "  bwrap's own CPU per process it starts (two processes)",
      await bwrapOwnCpuMs(tools.sandbox.path, Math.max(5, runs)),
      "(off starts none; it execs setpriv instead)",
    );
    compare("  a local tool call (echo, timed in the script)", calls, 3);
    const idle = processTreeMemory(sides.auto.pid);
    valueRow(
      "  its gateway's resident memory, idle after runs",
      describeTotal(idle),
      `vs ${describeTotal(processTreeMemory(sides.off.pid))} off`,
    );
  } finally {
    for (const side of Object.values(sides)) {
      side.close();
      await side.gw.dispose();
    }
  }
}

/**
 * One call with a 15 MB argument, then one with a 15 MB result: wall time and the CPU of the
 * server and the shared tool host, the runner's as it reads it itself.
 */
export async function measureBigCall(): Promise<void> {
  const side = await startSide("auto", {
    "gateway.json": JSON.stringify({ port: 0, exec: { timeoutMs: 120_000 } }),
    "tools/echo.ts": ECHO,
  });
  try {
    const host = await pollUntil("the shared tool host", () => sharedHostPid(side.pid));
    await side.exec(`await tools.echo.echo({ v: "warm" })`);
    console.log("one local call of 15 MB:");
    for (
      const [label, source] of [
        [
          "argument",
          `const v = "x".repeat(15_000_000); const c = process.cpuUsage(); const t = performance.now();
          (await tools.echo.echo({ v })).length;
          const used = process.cpuUsage(c);
          [performance.now() - t, (used.user + used.system) / 1000]`,
        ],
        [
          "argument and result",
          `const v = "x".repeat(15_000_000); const c = process.cpuUsage(); const t = performance.now();
          const back = await tools.echo.echo({ v });
          const used = process.cpuUsage(c);
          [performance.now() - t, (used.user + used.system) / 1000, back.length]`,
        ],
      ] as const
    ) {
      const server = cpuOwnMs(side.pid);
      const hostCpu = cpuOwnMs(host);
      const doc = await side.exec(source);
      const [ms, runnerCpu] = doc.result as [number, number];
      row(
        `  a 15 MB ${label}, timed in the script`,
        ms,
        `CPU: server ${(cpuOwnMs(side.pid) - server).toFixed(0)} ms, tool host ${
          (cpuOwnMs(host) - hostCpu).toFixed(0)
        } ms, runner ${runnerCpu.toFixed(0)} ms`,
      );
    }
  } finally {
    side.close();
    await side.gw.dispose();
  }
}

function sharedHostPid(serverPid: number): number | null {
  for (const process of processTreeMemory(serverPid).processes) {
    if (process.command === "shared tool host") return process.pid;
  }
  return null;
}

/**
 * Five tool modules idle in the shared host against the same five isolated (a process each):
 * the memory one process per module would cost.
 */
export async function measureModuleIsolation(modules: Record<string, string>): Promise<void> {
  const names = Object.keys(modules);
  const files = (isolate: boolean): RootFiles => ({
    "gateway.json": JSON.stringify({
      port: 0,
      tools: Object.fromEntries(names.map((name) => [name, { isolate }])),
    }),
    ...Object.fromEntries(names.map((name) => [`tools/${name}.ts`, modules[name]!])),
  });
  console.log(`${names.length} tool modules idle, shared host against a process each:`);
  for (const isolate of [false, true]) {
    const gw = await createHarness({ files: files(isolate) });
    try {
      const client = await gw.client();
      const { pid, port, token } = await gw.server();
      await pollUntil("every module ready", async () => {
        const response = await fetch(`http://127.0.0.1:${port}/health`, {
          headers: { authorization: `Bearer ${token}` },
        });
        const health = await response.json() as { namespaces: { status: string }[] };
        return health.namespaces.length === names.length &&
          health.namespaces.every((ns) => ns.status === "ready");
      }, { timeoutMs: 60_000, intervalMs: 100 });
      await new Promise((r) => setTimeout(r, 2_000));
      const memory = processTreeMemory(pid);
      valueRow(
        isolate ? "  isolated (a process per module)" : "  in the shared host (today)",
        describeTotal(memory),
        `${memory.processes.length} processes`,
      );
      console.log(describeTree(memory));
      client.close();
    } finally {
      await gw.dispose();
    }
  }
}
