/**
 * Where the gateway's root (tools, scripts, workflows, gateway.json) and data dir (database,
 * token, server.json) are, resolved once per process from flags and environment (SPEC §1).
 * @module
 */

import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { sha256Hex } from "./sha256_hex.ts";

// Deno's own file APIs and a JavaScript SHA-256 rather than `node:fs` and `node:crypto`: every
// CLI start resolves these paths, and those two modules' first import costs ≈ 25 ms (issue 12).

/** Whether `path` exists (a symlink counts by its target), as `node:fs`'s `existsSync`. */
function existsSync(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** How the root was found; shown by `gateway status` so a surprise is explainable. */
export type RootSource = "flag" | "env" | "project" | "home" | "lootbox" | "bundled";

/** The resolved root: a directory and the config file in it (if any). */
export interface ResolvedRoot {
  dir: string;
  source: RootSource;
  /** `gateway.json`, or `lootbox.config.json` for a lootbox root; null when there is none. */
  configFile: string | null;
}

/**
 * The `.mcp.json` (Claude Code's project file) a root reads when its config has no
 * `mcpServers`: `ROOT/.mcp.json`, or for a project's `.gateway/` the one beside it, where
 * Claude Code keeps it. Null when there is none.
 */
export function mcpJsonFileOf(root: ResolvedRoot): string | null {
  const candidates = [join(root.dir, ".mcp.json")];
  if (basename(root.dir) === ".gateway" || basename(root.dir) === ".lootbox") {
    candidates.push(join(dirname(root.dir), ".mcp.json"));
  }
  return candidates.find((path) => existsSync(path)) ?? null;
}

/**
 * A short, stable name for a root, used for its data dir, service unit and launchd label:
 * the project's directory name (the parent of a `.gateway/`), then 8 hex digits of a hash of
 * the full path, so two projects named alike stay apart.
 */
export function rootKey(rootDir: string): string {
  const dir = resolve(rootDir);
  const named = basename(dir) === ".gateway" || basename(dir) === ".lootbox"
    ? basename(dirname(dir))
    : basename(dir);
  const slug = named.toLowerCase().replace(/[^a-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "") ||
    "root";
  const hash = sha256Hex(dir).slice(0, 8);
  return `${slug.slice(0, 40)}-${hash}`;
}

/** The gateway's installation directory: the bundled default root. */
export function installationDir(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
}

function isDir(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}

function configFileIn(dir: string): string | null {
  for (const name of ["gateway.json", "gateway.jsonc", "lootbox.config.json"]) {
    const path = join(dir, name);
    if (existsSync(path)) return path;
  }
  return null;
}

/**
 * Finds the root, first hit wins: `--root`, `$GATEWAY_ROOT`, `.gateway/` walking up from `cwd`,
 * `~/.gateway/`, a `.lootbox/` walking up (migration), then the installation directory.
 */
export function resolveRoot(
  options: { flag?: string | undefined; env: Record<string, string | undefined>; cwd: string },
): ResolvedRoot {
  if (options.flag) {
    const dir = resolve(options.cwd, options.flag);
    if (!isDir(dir)) throw new Error(`Root "${dir}" given by --root is not a directory`);
    return { dir, source: "flag", configFile: configFileIn(dir) };
  }
  const fromEnv = options.env.GATEWAY_ROOT;
  if (fromEnv) {
    const dir = resolve(options.cwd, fromEnv);
    if (!isDir(dir)) throw new Error(`Root "${dir}" given by $GATEWAY_ROOT is not a directory`);
    return { dir, source: "env", configFile: configFileIn(dir) };
  }
  const home = options.env.HOME ?? options.env.USERPROFILE;
  const homeRoot = home ? join(home, ".gateway") : null;
  for (let dir = resolve(options.cwd);; dir = dirname(dir)) {
    const candidate = join(dir, ".gateway");
    if (candidate !== homeRoot && isDir(candidate)) {
      return { dir: candidate, source: "project", configFile: configFileIn(candidate) };
    }
    if (dirname(dir) === dir) break;
  }
  if (homeRoot && isDir(homeRoot)) {
    return { dir: homeRoot, source: "home", configFile: configFileIn(homeRoot) };
  }
  for (let dir = resolve(options.cwd);; dir = dirname(dir)) {
    const candidate = join(dir, ".lootbox");
    if (isDir(candidate)) {
      const config = existsSync(join(dir, "lootbox.config.json"))
        ? join(dir, "lootbox.config.json")
        : configFileIn(candidate);
      return { dir: candidate, source: "lootbox", configFile: config };
    }
    if (dirname(dir) === dir) break;
  }
  const bundled = installationDir();
  return { dir: bundled, source: "bundled", configFile: configFileIn(bundled) };
}

/**
 * The user's data dir, under which each root has its own: `$XDG_DATA_HOME/gateway`, else
 * `~/.local/share/gateway` (macOS: `~/Library/Application Support/gateway`).
 */
export function userDataDir(
  options: { env: Record<string, string | undefined>; os: typeof Deno.build.os },
): string {
  const { env } = options;
  if (env.XDG_DATA_HOME) return join(env.XDG_DATA_HOME, "gateway");
  const home = env.HOME ?? env.USERPROFILE;
  if (!home) throw new Error("Cannot find a data dir: set $GATEWAY_DATA_DIR or $HOME");
  if (options.os === "darwin") return join(home, "Library", "Application Support", "gateway");
  return join(home, ".local", "share", "gateway");
}

/** Where per-root data dirs live inside the user's data dir. */
export function rootsDataDir(userDir: string): string {
  return join(userDir, "roots");
}

/**
 * The data dir of a root: `$GATEWAY_DATA_DIR` when set (it pins one data dir, whatever the
 * root), else `USER_DATA_DIR/roots/<rootKey>`, so each project has its own server, token and
 * database and several run at once (SPEC §14).
 */
export function resolveDataDir(
  options: {
    env: Record<string, string | undefined>;
    os: typeof Deno.build.os;
    cwd: string;
    rootDir: string;
  },
): string {
  if (options.env.GATEWAY_DATA_DIR) return resolve(options.cwd, options.env.GATEWAY_DATA_DIR);
  return join(rootsDataDir(userDataDir(options)), rootKey(options.rootDir));
}
