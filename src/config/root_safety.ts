/**
 * Whether a root may be used by this user: a root's `tools/` modules, its `gateway.json` and
 * `.mcp.json` commands and its `gateway.env` all run or configure code as the user who starts the
 * gateway, so a root another user owns or can write to would let them run code as you — for
 * example a `.gateway/` planted in a shared parent directory such as the temp dir, found by
 * walking up from a project below it. The rule is git's `safe.directory` one: the root and the
 * files in it that decide what runs must belong to you (or to root) and be writable by nobody
 * else (a group-writable file passes only when its group is your own primary group, as with
 * user-private groups). A root that fails is refused, naming the file, unless the user opted in
 * for it: `$GATEWAY_SAFE_ROOTS` (paths separated like `PATH`, `DIR/*` for everything under DIR,
 * `*` for every root), or the same entries one per line in `~/.config/gateway/safe_roots`
 * (`$XDG_CONFIG_HOME/gateway/safe_roots`), read only when a root fails.
 * @module
 */

import { ConfigError } from "./config_error.ts";
import { pathText } from "./path_text.ts";

/** The names inside a root (and beside a `.gateway/` or `.lootbox/`) that decide what runs. */
const CONTROL_NAMES = [
  "gateway.json",
  "gateway.jsonc",
  "lootbox.config.json",
  "gateway.env",
  ".mcp.json",
  "tools",
];

/** Names beside a project's `.gateway/` or `.lootbox/` that the root also reads. */
const BESIDE_NAMES = [".mcp.json", "lootbox.config.json"];

/** What makes a path unsafe, in words for the error; null when it is safe. */
export function unsafeReason(
  info: Pick<Deno.FileInfo, "uid" | "gid" | "mode">,
  me: { uid: number; gid: number | null },
): string | null {
  if (info.uid === null || info.mode === null) return null; // no owners here (Windows)
  if (info.uid !== me.uid && info.uid !== 0) {
    return `belongs to uid ${info.uid}, not to you (uid ${me.uid})`;
  }
  if ((info.mode & 0o002) !== 0) return `is writable by every user (mode ${octal(info.mode)})`;
  if ((info.mode & 0o020) !== 0 && info.gid !== me.gid) {
    return `is writable by group ${info.gid} (mode ${octal(info.mode)})`;
  }
  return null;
}

function octal(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, "0");
}

/** Where the user's opt-in file is: `$XDG_CONFIG_HOME/gateway/safe_roots`, else under `~/.config`. */
export function safeRootsFile(env: Record<string, string | undefined>): string | null {
  const path = pathText();
  if (env.XDG_CONFIG_HOME) return path.join(env.XDG_CONFIG_HOME, "gateway", "safe_roots");
  const home = env.HOME ?? env.USERPROFILE;
  return home ? path.join(home, ".config", "gateway", "safe_roots") : null;
}

/**
 * The opt-in entries: `$GATEWAY_SAFE_ROOTS`, then the lines of the user's `safe_roots` file when
 * that file is the user's own and nobody else can write it (otherwise it is ignored, and the
 * error says so).
 */
function optedIn(
  env: Record<string, string | undefined>,
  me: { uid: number; gid: number | null },
  notes: string[],
): string[] {
  const path = pathText();
  const entries = (env.GATEWAY_SAFE_ROOTS ?? "").split(path.delimiter);
  const file = safeRootsFile(env);
  if (file !== null) {
    let text: string | null = null;
    try {
      const reason = unsafeReason(Deno.statSync(file), me);
      if (reason === null) text = Deno.readTextFileSync(file);
      else notes.push(`${file} is ignored: it ${reason}`);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) {
        notes.push(`${file} cannot be read: ${(error as Error).message}`);
      }
    }
    if (text !== null) {
      entries.push(...text.split("\n").map((line) => line.replace(/#.*$/, "")));
    }
  }
  return entries.map((entry) => entry.trim()).filter((entry) => entry !== "");
}

/** Whether `dir` is named by an opt-in entry (exactly, by `PARENT/*`, or by `*`). */
export function isOptedIn(dir: string, entries: readonly string[]): boolean {
  const path = pathText();
  for (const entry of entries) {
    if (entry === "*") return true;
    if (entry.endsWith("/*") || entry.endsWith("\\*")) {
      const parent = path.resolve("/", entry.slice(0, -2));
      if (dir.startsWith(parent.endsWith(path.sep) ? parent : parent + path.sep)) return true;
    } else if (path.resolve("/", entry) === dir) return true;
  }
  return false;
}

/**
 * Throws {@linkcode ConfigError} when the root at `dir` (found as `source`), or one of the files
 * in it that decide what runs, belongs to another user or is writable by others, and the user
 * has not opted in for it. `entries` lists `dir` (the names present in it) when the caller has
 * already read it; it is read otherwise.
 */
export function assertSafeRoot(
  dir: string,
  options: { env: Record<string, string | undefined>; entries?: readonly string[] },
): void {
  const uid = Deno.uid();
  if (uid === null) return; // no owners to compare (Windows)
  const me = { uid, gid: Deno.gid() };
  const path = pathText();
  const checked: string[] = [dir];
  const present = options.entries ?? namesIn(dir);
  for (const name of CONTROL_NAMES) if (present.includes(name)) checked.push(path.join(dir, name));
  const base = path.basename(dir);
  if (base === ".gateway" || base === ".lootbox") {
    const parent = path.dirname(dir);
    const beside = namesIn(parent);
    for (const name of BESIDE_NAMES) {
      if (beside.includes(name)) checked.push(path.join(parent, name));
    }
  }
  for (const file of checked) {
    let reason: string | null;
    try {
      // A link is judged by its target and, for the root itself, by who may replace the link
      const link = file === dir ? Deno.lstatSync(file) : null;
      // (a link's own mode bits mean nothing: only its owner counts).
      reason = (link?.isSymlink ? unsafeReason({ ...link, mode: 0o755 }, me) : null) ??
        unsafeReason(Deno.statSync(file), me);
    } catch {
      continue; // gone since it was listed, or a dangling link: nothing there to run
    }
    if (reason === null) continue;
    const notes: string[] = [];
    if (isOptedIn(dir, optedIn(options.env, me, notes))) return;
    const what = file === dir ? "it" : `"${file}"`;
    const list = safeRootsFile(options.env);
    throw new ConfigError(
      `Refusing root "${dir}": ${what} ${reason}, so another user could run code as you ` +
        `through it. If you trust it, opt in with GATEWAY_SAFE_ROOTS="${dir}"` +
        `${list ? ` (or add the line ${dir} to ${list})` : ""}; otherwise remove it, or ` +
        `pass --root DIR to use another root${notes.length > 0 ? ` (${notes.join("; ")})` : ""}`,
    );
  }
}

/** The names in `dir`, or none when it cannot be listed. */
function namesIn(dir: string): string[] {
  try {
    return [...Deno.readDirSync(dir)].map((entry) => entry.name);
  } catch {
    return [];
  }
}
