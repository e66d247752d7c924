/**
 * Starts one runner subprocess: a fresh Deno process in its own process group with no
 * permissions beyond its channel and its script file (plus what the caller was granted), with
 * remote and npm imports off unless network access was granted, and then only from the granted
 * hosts (SPEC §5, SBX-02).
 * @module
 */

import { join } from "node:path";
import type { PermissionSet } from "../config/gateway_config.ts";
import { permissionFlags } from "../config/permission_flags.ts";
import type { RunChannelServer, RunnerConnection } from "./run_channel_server.ts";

/** A started runner waiting for (or running) its script. */
export interface RunnerProcess {
  /** The script file this runner may read; written when a run is assigned. */
  scriptPath: string;
  dir: string;
  child: Deno.ChildProcess;
  /** Resolves when the runner has connected and presented its token. */
  connection: Promise<RunnerConnection>;
  permissions: PermissionSet;
  maxMemoryMb: number;
  /** Ends the whole process group: TERM, then KILL after `graceMs`. */
  kill(graceMs?: number): Promise<void>;
}

/** How to start a runner. */
export interface RunnerSpawnOptions {
  channel: RunChannelServer;
  /** Private (0700) directory under which each runner gets its own directory. */
  runsDir: string;
  permissions: PermissionSet;
  maxMemoryMb: number;
  /** Working directory of the process; relative grants were resolved against it already. */
  cwd: string;
  /** Environment variables passed through (only names the run was granted). */
  env: Record<string, string>;
  /** Deno's cache directory, so runs reuse transpiled code. */
  denoDir: string;
}

const RUNNER_MAIN = new URL("./runner/runner_main.ts", import.meta.url).pathname;

function randomHex(bytes: number): string {
  return Array.from(
    crypto.getRandomValues(new Uint8Array(bytes)),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
}

function merge(grant: boolean | string[] | undefined, own: string[]): boolean | string[] {
  if (grant === true) return true;
  return [...own, ...(Array.isArray(grant) ? grant : [])];
}

/** Builds the `deno run` flags of a runner. Exported for tests of the sandbox flags. */
export function runnerFlags(
  options: {
    permissions: PermissionSet;
    scriptPath: string;
    socketPath: string;
    maxMemoryMb: number;
  },
): string[] {
  const { permissions, scriptPath, socketPath } = options;
  const netHosts = Array.isArray(permissions.net) ? permissions.net : [];
  // Imports: none without network; only from the granted hosts with a host list (Deno's default
  // import allow-list, esm.sh and friends, would otherwise open a channel the grant never named,
  // and npm: would reach the registry); anything with unrestricted network.
  const importFlags = permissions.net === true
    ? []
    : netHosts.length > 0
    ? [`--allow-import=${netHosts.join(",")}`, "--no-npm"]
    : ["--no-remote", "--no-npm"];
  const grants: PermissionSet = {
    ...permissions,
    read: merge(permissions.read, [scriptPath, socketPath]),
    write: merge(permissions.write, [socketPath]),
    net: merge(permissions.net, [`unix:${socketPath}`]),
  };
  return [
    "run",
    "--no-prompt",
    "--no-config",
    "--no-lock",
    "--quiet",
    ...importFlags,
    `--v8-flags=--max-old-space-size=${options.maxMemoryMb}`,
    ...permissionFlags(grants),
    RUNNER_MAIN,
    socketPath,
  ];
}

/** Spawns a runner and registers its one-time token with the channel server. */
export async function spawnRunner(options: RunnerSpawnOptions): Promise<RunnerProcess> {
  const dir = join(options.runsDir, randomHex(8));
  await Deno.mkdir(dir, { mode: 0o700 });
  const scriptPath = join(dir, "script.ts");
  const token = randomHex(32);
  const expectation = options.channel.expect(token);
  const child = new Deno.Command(Deno.execPath(), {
    args: runnerFlags({
      permissions: options.permissions,
      scriptPath,
      socketPath: options.channel.socketPath,
      maxMemoryMb: options.maxMemoryMb,
    }),
    cwd: options.cwd,
    clearEnv: true,
    env: { ...options.env, DENO_DIR: options.denoDir, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    detached: true,
  }).spawn();
  // The token goes over stdin, never argv or env, so /proc/<pid>/cmdline and environ hold no
  // secret (SEC-07).
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(token + "\n"));
  await writer.close();
  let killed = false;
  const kill = async (graceMs = 500) => {
    if (killed) return;
    killed = true;
    expectation.cancel();
    const signalGroup = (signal: Deno.Signal) => {
      try {
        Deno.kill(-child.pid, signal);
      } catch {
        // the group is gone already
      }
    };
    signalGroup("SIGTERM");
    const exited = await Promise.race([
      child.status.then(() => true),
      new Promise<false>((r) => setTimeout(() => r(false), graceMs)),
    ]);
    // Even when the runner exited, a child it forked may live on in its group: KILL the group.
    signalGroup("SIGKILL");
    if (!exited) await child.status;
  };
  return {
    scriptPath,
    dir,
    child,
    connection: expectation.connection,
    permissions: options.permissions,
    maxMemoryMb: options.maxMemoryMb,
    kill,
  };
}
