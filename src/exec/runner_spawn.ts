/**
 * Whether a runner's process leads a process group of its own: one that may start processes
 * does, so ending it ends all it started; one that cannot is started plainly, which
 * saves setsid(1)'s exec. (`SupervisedChild` starts it either way.)
 * @module
 */

import type { PermissionSet } from "../config/gateway_config.ts";
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
