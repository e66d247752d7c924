/**
 * Shared pieces of the run tests: temporary roots holding the probe tool module, the
 * bundled kv module and a real MCP server; the run document type; polling with a deadline; and
 * process inspection through /proc (memory, process groups, leftovers to clean up by pid).
 * @module
 */

import { fileURLToPath } from "node:url";
import type { GatewayClient } from "../../src/client/gateway_client.ts";
import type { RunDocument, RunningDocument } from "../../src/protocol/run_document.ts";
import { dirname } from "node:path";
import { type GatewayHarness, MAIN, REPO, type RootFiles, withHarness } from "./gateway_harness.ts";
import { pollUntil } from "./poll_until.ts";

export type { RunDocument, RunningDocument };

/** The real MCP server most run tests use as an upstream namespace. */
export const EVERYTHING_SERVER = fileURLToPath(
  new URL(
    "../servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    import.meta.url,
  ),
);

const PROBE = fileURLToPath(new URL("../fixtures/tool_modules/run_probe.ts", import.meta.url));

/**
 * Files of a temporary root: `gateway.json` from `config` (port 0, so tests never collide on a
 * fixed port), plus the probe module as `tools/probe.ts` and the bundled `tools/kv.ts` unless
 * turned off.
 */
export async function runTestRoot(options: {
  config?: Record<string, unknown>;
  /** @default {true} */
  probe?: boolean;
  /** @default {false} */
  kv?: boolean;
  files?: RootFiles;
} = {}): Promise<RootFiles> {
  const files: RootFiles = {
    "gateway.json": JSON.stringify({ port: 0, ...options.config }, null, 2),
    ...options.files,
  };
  if (options.probe ?? true) files["tools/probe.ts"] = await Deno.readTextFile(PROBE);
  if (options.kv) files["tools/kv.ts"] = await Deno.readTextFile(`${REPO}/tools/kv.ts`);
  return files;
}

/** Resident memory of a process in kB, from /proc/PID/status; null when it is gone. */
export function residentKb(pid: number): number | null {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(Deno.readTextFileSync(`/proc/${pid}/status`));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/** Whether a process exists and is not a zombie. */
export function processAlive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/**
 * Live (non-zombie) members of a process group, from a /proc scan. Zombies count as gone: a
 * killed child reparented to an init that reaps slowly (as in some containers) stays a zombie
 * for a while, and `kill(-pgid, 0)` would still see it.
 */
export function liveGroupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    let stat: string;
    try {
      stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
    } catch {
      continue;
    }
    // Fields after the command name: state, ppid, pgrp, …
    const [state, , group] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(group) === pgid && state !== "Z") members.push(Number(entry.name));
  }
  return members;
}

/** Live (non-zombie) processes whose command line contains `needle`, by pid. */
export function processesMatching(needle: string): number[] {
  const found: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    const pid = Number(entry.name);
    if (pid === Deno.pid) continue;
    let cmdline: string;
    try {
      cmdline = Deno.readTextFileSync(`/proc/${pid}/cmdline`).replaceAll("\0", " ");
    } catch {
      continue;
    }
    if (cmdline.includes(needle) && processAlive(pid)) found.push(pid);
  }
  return found;
}

/**
 * The host pid of the Deno process running the script at `scriptPath` (as the script reads it
 * from `import.meta.filename`), or null. Under the OS sandbox the script's own `Deno.pid` is
 * its pid inside a PID namespace of its own, so tests find the runner by what its command line
 * names (its script is granted to it alone), skipping the bwrap around it.
 */
export function runnerPid(scriptPath: string): number | null {
  const deno = Deno.execPath();
  for (const pid of processesMatching(scriptPath)) {
    try {
      const program = Deno.readTextFileSync(`/proc/${pid}/cmdline`).split("\0")[0];
      if (program === deno) return pid;
    } catch {
      // gone
    }
  }
  return null;
}

/** SIGKILLs each pid that still runs (cleanup after tests that leave orphans on purpose). */
export function killPids(pids: number[]): void {
  for (const pid of pids) {
    try {
      Deno.kill(pid, "SIGKILL");
    } catch {
      // gone already
    }
  }
}

/** Sends `exec` over RPC and returns the finished run document. */
export async function execRpc(
  client: GatewayClient,
  params: Record<string, unknown>,
): Promise<RunDocument> {
  return await client.request<RunDocument>("exec", { check: false, ...params });
}

/** Parses the CLI's `--json` output as a run document, naming the output when it is not one. */
export function parseRun(stdout: string): RunDocument {
  try {
    return JSON.parse(stdout) as RunDocument;
  } catch (error) {
    throw new Error(`CLI output is not a run document: ${JSON.stringify(stdout.slice(0, 500))}`, {
      cause: error,
    });
  }
}

/** A `gateway server` the test process started itself (so it reaps it when it dies). */
export interface ForegroundServer {
  pid: number;
  status: Promise<Deno.CommandStatus>;
}

/**
 * Starts `gateway server` for the harness's root and data dir as a child of the test and waits
 * until `server.json` names it. Unlike the autostarted server, a SIGKILLed child is reaped at
 * once, so a restart never meets the zombie of the old one.
 */
export async function startForegroundServer(gw: GatewayHarness): Promise<ForegroundServer> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--no-prompt", "--quiet", MAIN, "--root", gw.root, "server"],
    cwd: gw.cwd,
    env: {
      GATEWAY_DATA_DIR: gw.dataDir,
      NO_COLOR: "1",
      HOME: Deno.env.get("HOME") ?? gw.cwd,
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      ...(Deno.env.get("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : {}),
    },
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const status = child.status;
  let exited = false;
  status.then(() => (exited = true));
  const outcome = await pollUntil("the foreground server to publish server.json", async () => {
    if (exited) return "exited";
    try {
      const state = JSON.parse(await Deno.readTextFile(`${gw.dataDir}/server.json`));
      return state.pid === child.pid ? "published" : undefined;
    } catch {
      return undefined;
    }
  }, { timeoutMs: 30_000, intervalMs: 50 });
  if (outcome === "exited") throw new Error("gateway server exited during start-up");
  return { pid: child.pid, status };
}

/**
 * {@linkcode withHarness}, plus a safety net: once the harness is disposed, any process still
 * running from its temporary directory (a server whose stop failed, a runner or tool host it
 * left behind) is killed by pid, so a failing test never leaks processes into the next.
 */
export async function withRunHarness<T>(
  options: Parameters<typeof withHarness>[0],
  fn: (gw: GatewayHarness) => Promise<T>,
): Promise<T> {
  let base: string | null = null;
  try {
    return await withHarness(options, (gw) => {
      base = dirname(gw.dataDir);
      return fn(gw);
    });
  } finally {
    if (base !== null) killPids(processesMatching(base));
  }
}
