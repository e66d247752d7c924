/**
 * How a runner's operating-system process is started and whether it leads a process group of
 * its own: one that may start processes does, so ending it ends all it started (SBX-06); one
 * that cannot is started plainly, which saves setsid(1)'s exec (issue 12).
 * @module
 */

import type { PermissionSet } from "../config/gateway_config.ts";
import type { ConfinedCommand } from "../process/os_sandbox.ts";
import { procStatFields } from "../process/proc_stat.ts";

/**
 * Whether a run with `permissions` can start other processes: with a `run` grant, or with
 * `ffi` (native code can fork). Without either Deno lets a script start none (nor signal any).
 */
export function mayStartProcesses(permissions: PermissionSet): boolean {
  return [permissions.run, permissions.ffi].some((grant) =>
    grant === true || (Array.isArray(grant) && grant.length > 0)
  );
}

let terminal: boolean | undefined;
/**
 * Whether a terminal's signals (Ctrl-C, a hang-up) can reach this process's group: it has a
 * controlling terminal (Linux: `tty_nr` in /proc/self/stat; elsewhere: a terminal on stdin),
 * as a `gateway server` in a shell's foreground has; a background or service server has none.
 * Read once.
 */
export function terminalSignalsReach(): boolean {
  if (terminal !== undefined) return terminal;
  if (Deno.build.os !== "linux") return terminal = Deno.stdin.isTerminal();
  return terminal = Number(procStatFields("self")?.[4] ?? 0) !== 0;
}

/**
 * `setsid(1)` where it exists (util-linux), else null. A `detached` spawn makes Deno fork the
 * whole server (its page tables: 20–60 ms with a few hundred MB resident, blocking the event
 * loop) to call setsid() before exec; a plain spawn is a cheap posix_spawn, and `setsid` then
 * execs Deno as the leader of a new session and process group, with the same pid (a freshly
 * spawned child never leads a group, so setsid(1) does not fork).
 */
function findSetsid(): string | null {
  if (Deno.build.os !== "linux") return null;
  for (const path of ["/usr/bin/setsid", "/bin/setsid"]) {
    try {
      if (Deno.statSync(path).isFile) return path;
    } catch {
      // not here
    }
  }
  return null;
}

let setsidPath: string | null | undefined;
/** The Deno binary runners are started with (the server's own), looked up once. */
let denoPath: string | undefined;

/**
 * Starts a runner's Deno process with the environment given (nothing else of the server's):
 * under `confine` (the OS sandbox, or the parent-death guard without it) when given, and as the
 * leader of a process group of its own when `ownGroup` (through setsid(1), or where it is
 * missing a `detached` spawn), else plainly. Says whether setsid(1) was used (it makes the
 * process a group leader a moment after the spawn, see {@linkcode leadsGroup}) and whether
 * the runner is inside bubblewrap's PID namespace (`child` is then bwrap, see
 * `ConfinedCommand`).
 */
export function spawnRunnerProcess(
  options: { cwd: string; env: Record<string, string>; denoDir: string },
  ownGroup: boolean,
  command: { args: string[]; confine?: (argv: string[]) => ConfinedCommand },
): { child: Deno.ChildProcess; viaSetsid: boolean; namespaced: boolean } {
  setsidPath ??= findSetsid();
  denoPath ??= Deno.execPath();
  const confined = command.confine?.([denoPath, ...command.args]) ??
    { argv: [denoPath, ...command.args], namespaced: false };
  const viaSetsid = ownGroup && setsidPath !== null;
  const argv = viaSetsid ? [setsidPath!, ...confined.argv] : confined.argv;
  const child = new Deno.Command(argv[0]!, {
    args: argv.slice(1),
    cwd: options.cwd,
    clearEnv: true,
    env: { ...options.env, DENO_DIR: options.denoDir, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    detached: ownGroup && setsidPath === null,
  }).spawn();
  return { child, viaSetsid, namespaced: confined.namespaced };
}

/**
 * Whether `pid` leads its own process group yet: a runner started through `setsid(1)` does
 * from the moment setsid has run in it, a moment after the spawn (Linux: /proc).
 */
export function leadsGroup(pid: number): boolean {
  const fields = procStatFields(pid);
  // Gone, or no /proc: nothing to tell, the group signal is all there is.
  return fields === null || Number(fields[2]) === pid;
}
