/**
 * Ending a child started with `detached: true` (its pid leads its own process group): the one
 * SIGTERM → grace → SIGKILL sequence shared by runners, tool hosts and stdio upstreams.
 * @module
 */

/**
 * Sends `signal` to the process group led by `pid`. A group already gone (ESRCH) is not an
 * error: the caller wanted it gone.
 */
export function signalProcessGroup(pid: number, signal: Deno.Signal): void {
  try {
    Deno.kill(-pid, signal);
  } catch {
    // ESRCH: nothing left in the group.
  }
}

/** Settings of {@linkcode terminateProcessGroup}. */
export interface TerminateOptions {
  /** How long the group may take to exit after SIGTERM before it gets SIGKILL. */
  graceMs: number;
  /**
   * How long to wait for the leader to exit on its own (e.g. after its stdin was closed)
   * before sending SIGTERM at all.
   * @default {0}
   */
  exitWaitMs?: number;
}

/**
 * Ends the group led by `pid`, whose leader's exit `status` settles: waits `exitWaitMs` for a
 * clean exit, sends SIGTERM, waits `graceMs`, then SIGKILLs the group — always, because a
 * process the leader forked may outlive it in the group. Resolves with the leader's status
 * once it is reaped. Every kind of child the gateway spawns ends through here, so "no
 * descendant survives a stop" holds in one place.
 *
 * @example
 * ```ts
 * import { terminateProcessGroup } from "./terminate_process_group.ts";
 * const child = new Deno.Command("sleep", { args: ["60"], detached: true }).spawn();
 * const status = await terminateProcessGroup(child.pid, child.status, { graceMs: 500 });
 * status.signal; // "SIGTERM"
 * ```
 */
export async function terminateProcessGroup(
  pid: number,
  status: Promise<Deno.CommandStatus>,
  options: TerminateOptions,
): Promise<Deno.CommandStatus> {
  const exitWaitMs = options.exitWaitMs ?? 0;
  if (exitWaitMs <= 0 || !(await settlesWithin(status, exitWaitMs))) {
    signalProcessGroup(pid, "SIGTERM");
    await settlesWithin(status, options.graceMs);
  }
  signalProcessGroup(pid, "SIGKILL");
  return await status;
}

/**
 * Ends one process that leads no group of its own (it cannot have started others): waits up
 * to `exitWaitMs` for it to exit by itself, then TERM, then KILL after `graceMs`. Signals
 * nothing once it has exited (`exited()`: its pid may be another process's by then). Resolves
 * with its exit status.
 */
export async function terminateProcess(
  child: Deno.ChildProcess,
  exited: () => boolean,
  options: TerminateOptions,
): Promise<Deno.CommandStatus> {
  const exitWaitMs = options.exitWaitMs ?? 0;
  if (exited() || (exitWaitMs > 0 && await settlesWithin(child.status, exitWaitMs))) {
    return await child.status;
  }
  const signal = (name: Deno.Signal) => {
    try {
      if (!exited()) child.kill(name);
    } catch {
      // it exited between the check and the signal
    }
  };
  signal("SIGTERM");
  if (!(await settlesWithin(child.status, options.graceMs))) signal("SIGKILL");
  return await child.status;
}

/**
 * Whether `promise` settles within `ms` (the timer is cleared either way): the one bounded wait
 * for a process, a pipe or a socket to finish, so no caller leaves a timer behind.
 */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true, () => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
