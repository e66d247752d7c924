/**
 * The per-user registry of running servers by root, so one root means one server whatever the
 * caller's environment. A data dir depends on `$XDG_DATA_HOME` and `$GATEWAY_DATA_DIR`, which an
 * MCP host that starts `gateway mcp` with a bare environment does not have: without this, it
 * starts a second server for the same project, whose held approvals and history the user's
 * shell never sees. Each server lists itself here (root, data dir, pid); a CLI whose own data
 * dir has no server for its root asks the registry before it starts one.
 *
 * The registry's place depends on `$HOME` alone (`~/.local/state/gateway/servers/`, macOS
 * `~/Library/Application Support/gateway/servers/`), never on the variables a host drops. It is
 * read as a hint, never trusted: the directory and each entry must be this user's and writable
 * by no one else, and an entry counts only while a server holds its data dir's lock and that
 * data dir's `server.json` names the same root (the server's socket is then checked to be this
 * user's before anything is sent, as for any server).
 * @module
 */

import { pathText } from "./path_text.ts";
import { sha256Hex } from "./sha256_hex.ts";
import { rootKey } from "./gateway_paths.ts";
import { serverLockHeld, type ServerState, serverStatePath } from "./server_state.ts";

/** What a server lists about itself. */
export interface RegistryEntry {
  root: string;
  dataDir: string;
  pid: number;
}

/** A server the registry names that runs now: its data dir and what its `server.json` says. */
export interface RegisteredServer {
  dataDir: string;
  state: ServerState;
}

/**
 * The registry directory for `env`'s `$HOME`, or null without one. Only `$HOME`: the other
 * variables that place the gateway's files are the ones a bare environment lacks.
 */
export function serverRegistryDir(
  env: Record<string, string | undefined>,
  os: typeof Deno.build.os = Deno.build.os,
): string | null {
  const home = env.HOME ?? env.USERPROFILE;
  if (!home) return null;
  const path = pathText(os);
  return os === "darwin"
    ? path.join(home, "Library", "Application Support", "gateway", "servers")
    : path.join(home, ".local", "state", "gateway", "servers");
}

/** The entry file of a data dir's server, named by root so a lookup reads only that root's. */
function entryName(root: string, dataDir: string): string {
  return `${rootKey(root)}.${sha256Hex(dataDir).slice(0, 16)}.json`;
}

/** Whether `info` is this user's and writable by no one else. */
function ownPrivate(info: Deno.FileInfo): boolean {
  const uid = Deno.uid();
  if (uid !== null && info.uid !== uid) return false;
  return info.mode === null || (info.mode & 0o022) === 0;
}

/** The registry directory, made (0700) when absent; null when it is not safe to use. */
function ensureRegistryDir(dir: string): string | null {
  Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const info = Deno.lstatSync(dir);
  return info.isDirectory && !info.isSymlink && ownPrivate(info) ? dir : null;
}

/**
 * Lists the server of `entry.dataDir` (this process, holding its lock) in the registry, and
 * drops entries whose data dir is gone. Never throws: a registry that cannot be written costs
 * only the lookup it serves, and the server runs on; the reason is answered for its log.
 */
export function registerServer(
  entry: RegistryEntry,
  env: Record<string, string | undefined> = Deno.env.toObject(),
): string | null {
  const base = serverRegistryDir(env);
  if (base === null) return "no $HOME: other environments will not find this server";
  try {
    const dir = ensureRegistryDir(base);
    if (dir === null) {
      return `"${base}" is not a private directory of this user: not listing this server there`;
    }
    const path = pathText();
    for (const stale of Deno.readDirSync(dir)) {
      const file = path.join(dir, stale.name);
      const listed = readEntry(file);
      if (listed !== null && !exists(listed.dataDir)) Deno.removeSync(file);
    }
    const file = path.join(dir, entryName(entry.root, entry.dataDir));
    const temp = `${file}.${entry.pid}.tmp`;
    Deno.writeTextFileSync(temp, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
    Deno.renameSync(temp, file);
    return null;
  } catch (error) {
    return `cannot list this server in "${base}": ${(error as Error).message}`;
  }
}

/** Drops the entry of `dataDir`'s server if it still names `pid` (never another server's). */
export function withdrawServer(
  options: { root: string; dataDir: string; pid: number },
  env: Record<string, string | undefined> = Deno.env.toObject(),
): void {
  const base = serverRegistryDir(env);
  if (base === null) return;
  const file = pathText().join(base, entryName(options.root, options.dataDir));
  const listed = readEntry(file);
  if (listed?.pid === options.pid) {
    try {
      Deno.removeSync(file);
    } catch {
      // removed already
    }
  }
}

function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** An entry file, if it is a plain file of this user's that no one else can write, and valid. */
function readEntry(file: string): RegistryEntry | null {
  try {
    const info = Deno.lstatSync(file);
    if (!info.isFile || !ownPrivate(info)) return null;
    const entry = JSON.parse(Deno.readTextFileSync(file)) as Partial<RegistryEntry>;
    if (
      typeof entry.root !== "string" || typeof entry.dataDir !== "string" ||
      typeof entry.pid !== "number" || !pathText().isAbsolute(entry.dataDir)
    ) {
      return null;
    }
    return { root: entry.root, dataDir: entry.dataDir, pid: entry.pid };
  } catch {
    return null;
  }
}

/**
 * The server running now for data dir `dataDir` if it serves `root`: a server holds the data
 * dir's lock, the data dir is this user's, and its `server.json` names `root`. Null otherwise.
 */
export function liveServerOf(dataDir: string, root: string): ServerState | null {
  try {
    const info = Deno.lstatSync(dataDir);
    if (!info.isDirectory || !ownPrivate(info)) return null;
    const state = JSON.parse(Deno.readTextFileSync(serverStatePath(dataDir))) as ServerState;
    if (state.root !== root || !serverLockHeld(dataDir)) return null;
    state.socket ??= null;
    return state;
  } catch {
    return null;
  }
}

/**
 * The servers running now for `root` that the registry names, oldest entry first; `except`
 * leaves one data dir out (the caller's own). Empty when there is no registry or no such server.
 */
export function registeredServers(
  root: string,
  options: { env: Record<string, string | undefined>; except?: string },
): RegisteredServer[] {
  const base = serverRegistryDir(options.env);
  if (base === null) return [];
  let dirInfo: Deno.FileInfo;
  let names: string[];
  try {
    dirInfo = Deno.lstatSync(base);
    if (!dirInfo.isDirectory || dirInfo.isSymlink || !ownPrivate(dirInfo)) return [];
    const prefix = `${rootKey(root)}.`;
    names = [...Deno.readDirSync(base)].map((e) => e.name).filter((n) =>
      n.startsWith(prefix) && n.endsWith(".json")
    );
  } catch {
    return [];
  }
  const path = pathText();
  const found: Array<RegisteredServer & { at: number }> = [];
  for (const name of names) {
    const file = path.join(base, name);
    const entry = readEntry(file);
    if (entry === null || entry.root !== root || entry.dataDir === options.except) continue;
    const state = liveServerOf(entry.dataDir, root);
    if (state === null) continue;
    found.push({ dataDir: entry.dataDir, state, at: Date.parse(state.startedAt) || 0 });
  }
  return found.sort((a, b) => a.at - b.at).map(({ dataDir, state }) => ({ dataDir, state }));
}
