/**
 * Where the gateway's root (tools, scripts, workflows, gateway.json) and data dir (database,
 * token, server.json, the server's socket) are, resolved once per process from flags and
 * environment. One resolver for the whole CLI, the `gateway exec` fast path included, so it
 * loads Deno APIs only (no `node:` module, whose first import costs that path more than a bare
 * `deno run`) and probes with directory listings rather than `stat`s that mostly miss: a
 * process's first thrown error makes V8 re-read the whole bundle for source positions.
 * A root found here has passed the ownership check of `root_safety.ts`.
 * @module
 */

import { assertSafeRoot } from "./root_safety.ts";
import { filePathOf, pathText } from "./path_text.ts";
import { sha256Hex } from "./sha256_hex.ts";

/** How the root was found; shown by `gateway status` so a surprise is explainable. */
export type RootSource = "flag" | "env" | "project" | "home" | "lootbox" | "bundled";

/** The resolved root: a directory and the config file in it (if any). */
export interface ResolvedRoot {
  dir: string;
  source: RootSource;
  /** `gateway.json`, or `lootbox.config.json` for a lootbox root; null when there is none. */
  configFile: string | null;
}

const CONFIG_NAMES = ["gateway.json", "gateway.jsonc", "lootbox.config.json"];

/**
 * Directory listings asked for while resolving, kept: each ancestor is asked for `.gateway`
 * and `.lootbox`, and the root's own listing answers its config file and its safety check.
 */
class Listings {
  readonly #seen = new Map<string, Deno.DirEntry[] | null>();

  /** The entries of `dir`, or null when it cannot be listed. */
  of(dir: string): Deno.DirEntry[] | null {
    let entries = this.#seen.get(dir);
    if (entries === undefined) {
      try {
        entries = [...Deno.readDirSync(dir)];
      } catch {
        entries = null;
      }
      this.#seen.set(dir, entries);
    }
    return entries;
  }

  /** Whether `dir` holds a directory (or a link to one) called `name`. */
  hasDir(dir: string, name: string): boolean {
    const entries = this.of(dir);
    const path = pathText();
    if (entries === null) return isDir(path.join(dir, name)); // not listable: ask the child
    const entry = entries.find((e) => e.name === name);
    if (entry === undefined) return false;
    return entry.isDirectory || (entry.isSymlink && isDir(path.join(dir, name)));
  }

  /** Whether `dir` holds an entry called `name`. */
  has(dir: string, name: string): boolean {
    const entries = this.of(dir);
    if (entries === null) return exists(pathText().join(dir, name));
    return entries.some((e) => e.name === name);
  }
}

function isDir(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The `.mcp.json` (Claude Code's project file) a root reads when its config has no
 * `mcpServers`: `ROOT/.mcp.json`, or for a project's `.gateway/` the one beside it, where
 * Claude Code keeps it. Null when there is none.
 */
export function mcpJsonFileOf(root: ResolvedRoot): string | null {
  const path = pathText();
  const candidates = [path.join(root.dir, ".mcp.json")];
  const base = path.basename(root.dir);
  if (base === ".gateway" || base === ".lootbox") {
    candidates.push(path.join(path.dirname(root.dir), ".mcp.json"));
  }
  return candidates.find((file) => exists(file)) ?? null;
}

/**
 * A short, stable name for a root, used for its data dir, service unit and launchd label:
 * the project's directory name (the parent of a `.gateway/`), then 8 hex digits of a hash of
 * the full path, so two projects named alike stay apart.
 */
export function rootKey(rootDir: string): string {
  const path = pathText();
  const dir = path.resolve("/", rootDir);
  const base = path.basename(dir);
  const named = base === ".gateway" || base === ".lootbox"
    ? path.basename(path.dirname(dir))
    : base;
  const slug = named.toLowerCase().replace(/[^a-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "") ||
    "root";
  return `${slug.slice(0, 40)}-${sha256Hex(dir).slice(0, 8)}`;
}

/** The gateway's installation directory: the bundled default root. */
export function installationDir(): string {
  // Two levels up from here, as from the CLI's bundle (`src/cli/fast_main.bundle.js`).
  return pathText().resolve("/", filePathOf(new URL("../..", import.meta.url)));
}

function configFileIn(dir: string, listings: Listings): string | null {
  const name = CONFIG_NAMES.find((n) => listings.has(dir, n));
  return name === undefined ? null : pathText().join(dir, name);
}

/** The root as found, before its safety check. */
function findRoot(
  options: { flag?: string | undefined; env: Record<string, string | undefined>; cwd: string },
  listings: Listings,
): ResolvedRoot {
  const path = pathText();
  if (options.flag) {
    const dir = path.resolve(options.cwd, options.flag);
    if (!isDir(dir)) throw new Error(`Root "${dir}" given by --root is not a directory`);
    return { dir, source: "flag", configFile: configFileIn(dir, listings) };
  }
  const fromEnv = options.env.GATEWAY_ROOT;
  if (fromEnv) {
    const dir = path.resolve(options.cwd, fromEnv);
    if (!isDir(dir)) throw new Error(`Root "${dir}" given by $GATEWAY_ROOT is not a directory`);
    return { dir, source: "env", configFile: configFileIn(dir, listings) };
  }
  const home = options.env.HOME ?? options.env.USERPROFILE;
  const homeRoot = home ? path.resolve(options.cwd, path.join(home, ".gateway")) : null;
  const start = path.resolve(options.cwd, ".");
  for (let dir = start;; dir = path.dirname(dir)) {
    const candidate = path.join(dir, ".gateway");
    if (candidate !== homeRoot && listings.hasDir(dir, ".gateway")) {
      return { dir: candidate, source: "project", configFile: configFileIn(candidate, listings) };
    }
    if (path.dirname(dir) === dir) break;
  }
  if (homeRoot && listings.hasDir(path.dirname(homeRoot), ".gateway")) {
    return { dir: homeRoot, source: "home", configFile: configFileIn(homeRoot, listings) };
  }
  for (let dir = start;; dir = path.dirname(dir)) {
    if (listings.hasDir(dir, ".lootbox")) {
      const candidate = path.join(dir, ".lootbox");
      const config = listings.has(dir, "lootbox.config.json")
        ? path.join(dir, "lootbox.config.json")
        : configFileIn(candidate, listings);
      return { dir: candidate, source: "lootbox", configFile: config };
    }
    if (path.dirname(dir) === dir) break;
  }
  const bundled = installationDir();
  return { dir: bundled, source: "bundled", configFile: configFileIn(bundled, listings) };
}

/**
 * Finds the root, first hit wins: `--root`, `$GATEWAY_ROOT`, `.gateway/` walking up from `cwd`,
 * `~/.gateway/`, a `.lootbox/` walking up (migration), then the installation directory. Throws
 * `ConfigError` for a root (other than the installation's own) that another user owns or can
 * write to, unless the user opted in for it (`root_safety.ts`).
 */
export function resolveRoot(
  options: { flag?: string | undefined; env: Record<string, string | undefined>; cwd: string },
): ResolvedRoot {
  const listings = new Listings();
  const root = findRoot(options, listings);
  if (root.source !== "bundled") {
    const entries = listings.of(root.dir);
    assertSafeRoot(root.dir, {
      env: options.env,
      ...(entries !== null ? { entries: entries.map((e) => e.name) } : {}),
    });
  }
  return root;
}

/**
 * The user's data dir, under which each root has its own: `$XDG_DATA_HOME/gateway`, else
 * `~/.local/share/gateway` (macOS: `~/Library/Application Support/gateway`).
 */
export function userDataDir(
  options: { env: Record<string, string | undefined>; os: typeof Deno.build.os },
): string {
  const { env } = options;
  const path = pathText(options.os);
  if (env.XDG_DATA_HOME) return path.join(env.XDG_DATA_HOME, "gateway");
  const home = env.HOME ?? env.USERPROFILE;
  if (!home) throw new Error("Cannot find a data dir: set $GATEWAY_DATA_DIR or $HOME");
  if (options.os === "darwin") return path.join(home, "Library", "Application Support", "gateway");
  return path.join(home, ".local", "share", "gateway");
}

/** Where per-root data dirs live inside the user's data dir. */
export function rootsDataDir(userDir: string): string {
  return pathText().join(userDir, "roots");
}

/**
 * The data dir of a root: `$GATEWAY_DATA_DIR` when set (it pins one data dir, whatever the
 * root), else `USER_DATA_DIR/roots/<rootKey>`, so each project has its own server, token and
 * database and several run at once.
 */
export function resolveDataDir(
  options: {
    env: Record<string, string | undefined>;
    os: typeof Deno.build.os;
    cwd: string;
    rootDir: string;
  },
): string {
  const path = pathText(options.os);
  if (options.env.GATEWAY_DATA_DIR) return path.resolve(options.cwd, options.env.GATEWAY_DATA_DIR);
  return path.join(rootsDataDir(userDataDir(options)), rootKey(options.rootDir));
}
