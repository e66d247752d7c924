/**
 * `server.json` in the data dir: how clients find the running server (its socket, port, pid,
 * root, version). Written atomically by the server that holds the data dir's `server.lock`;
 * whether that server still lives is asked of the lock, never of the pid (a pid is reused by
 * any process once its owner dies, and may then belong to another user's program).
 * @module
 */

/** What a running server publishes about itself. */
export interface ServerState {
  pid: number;
  host: string;
  port: number;
  /**
   * The unix socket the local CLI reaches the server on (inside the data dir, or the private
   * runtime dir when that path is too long for a socket); null where there are none (Windows).
   */
  socket: string | null;
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
 * Whether a process with this pid exists and has not exited, for a process the caller started
 * itself (its own child), never for a server: a pid in a file may since belong to anyone. A
 * zombie (exited, not yet reaped by its parent) answers signals, so on Linux its state in
 * `/proc` is checked too.
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
 * Whether a server holds the data dir's `server.lock` now. The kernel drops the lock when its
 * holder dies (even by `kill -9`), so a held lock is a live server of this data dir, and a free
 * one means no server runs here whatever `server.json` says. Probed with a shared lock, let go
 * at once: probes never conflict with each other, and a server that starts at that very moment
 * tries again (`gateway_server.ts`).
 */
export function serverLockHeld(dataDir: string): boolean {
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(serverLockPath(dataDir), { read: true });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false; // never started here
    throw error;
  }
  try {
    return !file.tryLockSync(false);
  } finally {
    file.close();
  }
}

/**
 * Reads `server.json`. Returns null when absent; `stale: true` when no server holds the data
 * dir's lock (the server crashed or was killed), so callers start a new one instead of trusting
 * the file.
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
      state: {
        pid: 0,
        host: "",
        port: 0,
        socket: null,
        root: "",
        dataDir,
        version: "",
        startedAt: "",
      },
      stale: true,
    };
  }
  state.socket ??= null; // written by a server from before the socket
  return { state, stale: typeof state.pid !== "number" || !serverLockHeld(dataDir) };
}

/** Removes `server.json` if it still names `pid` (never another server's file). */
export async function removeServerState(dataDir: string, pid: number): Promise<void> {
  const current = await readServerState(dataDir);
  if (current && current.state.pid === pid) {
    await Deno.remove(serverStatePath(dataDir)).catch(() => undefined);
  }
}

/**
 * Whether no process holds the data dir's server lock: what a new server needs to start. A
 * server removes its `server.json` before its last steps, so a stop that waited only for that
 * let a `gateway start` right after it find the data dir still taken.
 */
export function serverLockFree(dataDir: string): boolean {
  return !serverLockHeld(dataDir);
}

/**
 * The pid of the process holding the data dir's `server.lock`, read from the kernel's lock
 * table (`/proc/locks`, Linux), or null where there is none or no such table. Unlike a pid in
 * `server.json`, this one is the server's for as long as it holds the lock.
 */
export function lockHolderPid(dataDir: string): number | null {
  if (Deno.build.os !== "linux") return null;
  let info: Deno.FileInfo;
  let table: string;
  try {
    info = Deno.statSync(serverLockPath(dataDir));
    table = Deno.readTextFileSync("/proc/locks");
  } catch {
    return null;
  }
  if (info.dev === null || info.ino === null) return null;
  const dev = BigInt(info.dev);
  const major = Number(((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn));
  const minor = Number((dev & 0xffn) | ((dev >> 12n) & ~0xffn));
  for (const line of table.split("\n")) {
    // "1: FLOCK  ADVISORY  WRITE 4242 fe:00:2149569 0 EOF" (blocked waiters start "1: ->")
    const fields = line.trim().split(/\s+/);
    if (fields[1] !== "FLOCK" || fields[3] !== "WRITE") continue;
    const [maj, min, ino] = (fields[5] ?? "").split(":");
    if (
      parseInt(maj ?? "", 16) === major && parseInt(min ?? "", 16) === minor &&
      Number(ino) === info.ino
    ) {
      const pid = Number(fields[4]);
      return Number.isInteger(pid) && pid > 0 ? pid : null;
    }
  }
  return null;
}
