/**
 * A record, on disk, of the process groups a server started (runners, tool hosts, stdio
 * upstreams), so the next server for the same data dir can end the ones a `kill -9` left
 * behind. Each entry keeps the process's start time, so a pid reused by an
 * unrelated program since is never signalled.
 * @module
 */

import { join } from "node:path";
import { procStatFields } from "./proc_stat.ts";

/** Entries appended before the file is rewritten with only the live ones. */
const COMPACT_EVERY = 256;

/** The start time of `pid` in clock ticks since boot (Linux), or null when unknown. */
export function processStartTime(pid: number): string | null {
  return procStatFields(pid)?.[19] ?? null;
}

interface Entry {
  pid: number;
  start: string | null;
}

function parseEntries(text: string): Entry[] {
  return text.split("\n").flatMap((line) => {
    const [pid, start] = line.trim().split(" ");
    const n = Number(pid);
    return Number.isInteger(n) && n > 1
      ? [{ pid: n, start: start && start !== "-" ? start : null }]
      : [];
  });
}

/** The pids of every process now, from /proc; null where there is none to list. */
function runningPids(): Set<number> | null {
  try {
    const pids = new Set<number>();
    for (const entry of Deno.readDirSync("/proc")) {
      const pid = Number(entry.name);
      if (Number.isInteger(pid)) pids.add(pid);
    }
    return pids;
  } catch {
    return null;
  }
}

/** Whether the entry still names the process it was written for. */
function stillSame(entry: Entry): boolean {
  const now = processStartTime(entry.pid);
  return now !== null && entry.start !== null && now === entry.start;
}

/** The process groups this server started, written to `children-<pid>.log` in the state dir. */
export class ProcessLedger {
  readonly #file: string;
  #appended = 0;
  readonly #log: (message: string) => void;

  constructor(stateDir: string, options: { log?: (message: string) => void } = {}) {
    this.#file = join(stateDir, `children-${Deno.pid}.log`);
    this.#log = options.log ?? (() => {});
  }

  /** Records a child started with `detached: true` (its pid is its process group). */
  record(pid: number): void {
    try {
      Deno.writeTextFileSync(this.#file, `${pid} ${processStartTime(pid) ?? "-"}\n`, {
        append: true,
        mode: 0o600,
      });
      if (++this.#appended % COMPACT_EVERY === 0) this.#compact();
    } catch (error) {
      this.#log(`cannot record child process ${pid}: ${error}`);
    }
  }

  #compact(): void {
    // Most entries name runners long gone: one listing of /proc tells which pids exist, so only
    // those have their start time read (a read of a gone pid's stat fails with an Error built
    // per entry, CPU on every run).
    const running = runningPids();
    const live = parseEntries(Deno.readTextFileSync(this.#file)).filter((entry) =>
      (running === null || running.has(entry.pid)) && stillSame(entry)
    );
    Deno.writeTextFileSync(this.#file, live.map((e) => `${e.pid} ${e.start}\n`).join(""), {
      mode: 0o600,
    });
  }

  /** Removes this server's ledger (after a clean stop, when every child has been ended). */
  remove(): void {
    try {
      Deno.removeSync(this.#file);
    } catch {
      // never written
    }
  }

  /**
   * Ends the process groups recorded by servers that are gone. Call only while holding the
   * data dir's server lock, so no ledger here belongs to a live server. Returns how many
   * groups were signalled.
   */
  static reapStale(stateDir: string, options: { log?: (message: string) => void } = {}): number {
    const log = options.log ?? (() => {});
    let reaped = 0;
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(stateDir)];
    } catch {
      return 0;
    }
    for (const entry of entries) {
      const match = /^children-(\d+)\.log$/.exec(entry.name);
      if (!match || Number(match[1]) === Deno.pid) continue;
      const file = join(stateDir, entry.name);
      try {
        for (const child of parseEntries(Deno.readTextFileSync(file))) {
          if (!stillSame(child)) {
            // The leader died (with its server: the parent-death signal), but what it started
            // may live on in its group. Linux never hands out a pid still naming a group with
            // members, so a group found under a pid no process has is still that leader's.
            if (processStartTime(child.pid) !== null) continue;
            try {
              Deno.kill(-child.pid, "SIGKILL");
              reaped++;
            } catch {
              // no one left in its group
            }
            continue;
          }
          try {
            Deno.kill(-child.pid, "SIGKILL");
            reaped++;
          } catch {
            // No such group: a runner that could start no process leads none (runner_process.ts
            // `mayStartProcesses`), so it is ended alone; or it ended since the check.
            try {
              Deno.kill(child.pid, "SIGKILL");
              reaped++;
            } catch {
              // ended between the check and the signal
            }
          }
        }
        Deno.removeSync(file);
      } catch (error) {
        log(`cannot reap the children listed in "${file}": ${error}`);
      }
    }
    if (reaped > 0) log(`ended ${reaped} process group(s) left by a gateway that did not stop`);
    return reaped;
  }
}
