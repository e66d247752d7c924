/**
 * The root and data dir found the way {@linkcode resolveRoot} and {@linkcode resolveDataDir}
 * find them, with Deno APIs only: no `node:` module, whose first import costs more than a bare
 * `deno run` takes (the CLI's `exec` fast path pays for every module it loads). POSIX paths
 * only; null wherever the full resolver must answer (Windows, a `.lootbox/` root, a root that
 * is not a directory — the full path then reports it).
 * `lean_gateway_paths_test.ts` checks both resolvers agree.
 * @module
 */

import type { RootSource } from "./gateway_paths.ts";
import { sha256Hex } from "./sha256_hex.ts";

/** The root and data dir of an invocation, as the full resolver would find them. */
export interface LeanPaths {
  rootDir: string;
  rootSource: RootSource;
  dataDir: string;
}

/** POSIX `resolve(base, path)`: absolute, normalized, no trailing slash. */
function resolvePath(base: string, path: string): string {
  const parts: string[] = [];
  for (const part of (path.startsWith("/") ? path : `${base}/${path}`).split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return `/${parts.join("/")}`;
}

function parentOf(path: string): string {
  const at = path.lastIndexOf("/");
  return at <= 0 ? "/" : path.slice(0, at);
}

function nameOf(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

function isDir(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}

/**
 * Whether `dir` holds a directory `name`, found by listing `dir` rather than by a `stat` of the
 * child: most such probes miss, and a missed `stat` throws. The process's first error makes V8
 * re-parse the whole bundle for its source positions, ≈ 1.5 ms of the exec fast path (issue
 * 12). Listings are kept, since each ancestor is asked for `.gateway` and `.lootbox`.
 */
function hasDir(listings: Map<string, Deno.DirEntry[] | null>, dir: string, name: string): boolean {
  let entries = listings.get(dir);
  if (entries === undefined) {
    try {
      entries = [...Deno.readDirSync(dir)];
    } catch {
      entries = null; // not listable: ask for the child itself
    }
    listings.set(dir, entries);
  }
  if (entries === null) return isDir(resolvePath(dir, name));
  const entry = entries.find((e) => e.name === name);
  if (entry === undefined) return false;
  return entry.isDirectory || (entry.isSymlink && isDir(resolvePath(dir, name)));
}

/** Mirrors `rootKey`: the project's name as a slug, then 8 hex digits of SHA-256 of the path. */
function leanRootKey(dir: string): string {
  const parent = nameOf(dir) === ".gateway" || nameOf(dir) === ".lootbox";
  const named = parent ? nameOf(parentOf(dir)) : nameOf(dir);
  const slug = named.toLowerCase().replace(/[^a-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "") ||
    "root";
  return `${slug.slice(0, 40)}-${sha256Hex(dir).slice(0, 8)}`;
}

function leanRoot(
  options: { flag: string | null; env: Record<string, string | undefined>; cwd: string },
): { dir: string; source: RootSource } | null {
  const { env, cwd } = options;
  if (options.flag) {
    const dir = resolvePath(cwd, options.flag);
    return isDir(dir) ? { dir, source: "flag" } : null;
  }
  if (env.GATEWAY_ROOT) {
    const dir = resolvePath(cwd, env.GATEWAY_ROOT);
    return isDir(dir) ? { dir, source: "env" } : null;
  }
  const home = env.HOME ?? env.USERPROFILE;
  if (home && !home.startsWith("/")) return null; // relative: the full resolver's business
  const homeRoot = home ? resolvePath("/", `${home}/.gateway`) : null;
  const listings = new Map<string, Deno.DirEntry[] | null>();
  for (let dir = resolvePath(cwd, ".");; dir = parentOf(dir)) {
    const candidate = resolvePath(dir, ".gateway");
    if (candidate !== homeRoot && hasDir(listings, dir, ".gateway")) {
      return { dir: candidate, source: "project" };
    }
    if (dir === "/") break;
  }
  if (homeRoot && hasDir(listings, parentOf(homeRoot), ".gateway")) {
    return { dir: homeRoot, source: "home" };
  }
  for (let dir = resolvePath(cwd, ".");; dir = parentOf(dir)) {
    if (hasDir(listings, dir, ".lootbox")) return null; // a migration case: the full resolver
    if (dir === "/") break;
  }
  return { dir: resolvePath(import.meta.dirname ?? "/", "../.."), source: "bundled" };
}

/**
 * The root and data dir for `--root` (`flag`), the environment and `cwd`, or null when only
 * the full resolver in `gateway_paths.ts` can answer.
 */
export function leanGatewayPaths(
  options: { flag: string | null; env: Record<string, string | undefined>; cwd: string },
): LeanPaths | null {
  if (Deno.build.os === "windows" || !options.cwd.startsWith("/")) return null;
  const root = leanRoot(options);
  if (root === null) return null;
  const { env, cwd } = options;
  let dataDir: string;
  if (env.GATEWAY_DATA_DIR) dataDir = resolvePath(cwd, env.GATEWAY_DATA_DIR);
  else {
    let userDir: string;
    if (env.XDG_DATA_HOME) userDir = `${env.XDG_DATA_HOME}/gateway`;
    else {
      const home = env.HOME ?? env.USERPROFILE;
      if (!home) return null;
      userDir = Deno.build.os === "darwin"
        ? `${home}/Library/Application Support/gateway`
        : `${home}/.local/share/gateway`;
    }
    // A relative $XDG_DATA_HOME stays relative in the full resolver: leave it to it.
    if (!userDir.startsWith("/")) return null;
    dataDir = resolvePath("/", `${userDir}/roots/${leanRootKey(root.dir)}`);
  }
  return { rootDir: root.dir, rootSource: root.source, dataDir };
}
