/**
 * `server.json` in the data dir: how clients find the running server (pid, port, root,
 * version). Written atomically; a file whose pid is dead is stale and never trusted.
 * @module
 */

/** What a running server publishes about itself. */
export interface ServerState {
  pid: number;
  host: string;
  port: number;
  root: string;
  dataDir: string;
  version: string;
  startedAt: string;
}

/** Path of `server.json` in a data dir. */
export function serverStatePath(dataDir: string): string {
  // A plain join: `node:path` would be the only `node:` module the CLI's exec fast path loads.
  return `${dataDir.replace(/[\\/]+$/, "")}/server.json`;
}

/**
 * Path of `server.lock` in a data dir: the file whose lock a server holds for its whole life
 * (`gateway_server.ts`), and that a stop waits to find free ({@linkcode serverLockFree}).
 */
export function serverLockPath(dataDir: string): string {
  return `${dataDir.replace(/[\\/]+$/, "")}/server.lock`;
}

/** Writes `server.json` via a temp file and rename, so readers never see half a file. */
export async function writeServerState(dataDir: string, state: ServerState): Promise<void> {
  const path = serverStatePath(dataDir);
  const temp = `${path}.${state.pid}.tmp`;
  await Deno.writeTextFile(temp, JSON.stringify(state, null, 2) + "\n", { mode: 0o600 });
  await Deno.rename(temp, path);
}

/**
 * Whether a process with this pid exists and has not exited. A zombie (exited, not yet reaped
 * by its parent) answers signals, so on Linux its state in `/proc` is checked too.
 */
export function pidAlive(pid: number): boolean {
  try {
    Deno.kill(pid, "SIGCONT");
    if (Deno.build.os === "linux") {
      try {
        const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
        const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
        if (state === "Z" || state === "X") return false;
      } catch {
        // /proc unreadable: the signal's answer stands
      }
    }
    return true;
  } catch (error) {
    return !(error instanceof Deno.errors.NotFound) &&
      !(error instanceof Error && /ESRCH|No such process/.test(error.message));
  }
}

/**
 * Reads `server.json`. Returns null when absent; `stale: true` when its pid is dead (the
 * server crashed or was killed), so callers start a new one instead of trusting it.
 */
export async function readServerState(
  dataDir: string,
): Promise<{ state: ServerState; stale: boolean } | null> {
  let text: string;
  try {
    text = await Deno.readTextFile(serverStatePath(dataDir));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
  let state: ServerState;
  try {
    state = JSON.parse(text) as ServerState;
  } catch {
    return {
      state: { pid: 0, host: "", port: 0, root: "", dataDir, version: "", startedAt: "" },
      stale: true,
    };
  }
  return { state, stale: typeof state.pid !== "number" || !pidAlive(state.pid) };
}

/** Removes `server.json` if it still names `pid` (never another server's file). */
export async function removeServerState(dataDir: string, pid: number): Promise<void> {
  const current = await readServerState(dataDir);
  if (current && current.state.pid === pid) {
    await Deno.remove(serverStatePath(dataDir)).catch(() => undefined);
  }
}

/**
 * Whether no process holds the data dir's server lock (`server.lock`, which a server keeps for
 * its whole life): what a new server needs to start. A server removes its `server.json` before
 * its last steps, so a stop that waited only for that let a `gateway start` right after it find
 * the data dir still taken. Probed by taking the lock and letting it go at once.
 */
export async function serverLockFree(dataDir: string): Promise<boolean> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(serverLockPath(dataDir), {
      read: true,
      write: true,
    });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return true; // never started here
    throw error;
  }
  try {
    return await file.tryLock(true);
  } finally {
    file.close();
  }
}
