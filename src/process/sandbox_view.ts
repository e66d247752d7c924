/**
 * What a process started under the operating-system sandbox may see of the file system and the
 * network: its grants, the paths it never sees whatever they cover, and what it needs to run.
 * Callers build one per process (a runner from its run's grants, a tool host from its module's);
 * `bwrap_args.ts` and `sandbox_exec_profile.ts` turn it into each platform's terms.
 * @module
 */

import { dirname } from "node:path";

/** A process's view of the machine under the operating-system sandbox. */
export interface SandboxView {
  /** Paths it may read (absolute, symlinks resolved), or `true` for the whole file system. */
  read: true | readonly string[];
  /** Paths it may write (and read), or `true` for the whole file system. */
  write: true | readonly string[];
  /**
   * Directories that never exist inside, whatever a grant covers (the gateway's data dirs and
   * run scratch space): an empty directory stands in their place.
   */
  hidden: readonly string[];
  /**
   * Directories that exist inside only where a grant lies within them (home directories,
   * `/tmp`): a grant of a parent such as `/` does not open them, a grant of `~/project` opens
   * that directory alone (and a grant of `~` the whole home).
   */
  private: readonly string[];
  /**
   * Secrets in a directory the process may see, whatever shows them (applied last): a
   * directory is empty there, a file cannot be opened.
   */
  masked: readonly string[];
  /** Read-only, whatever else is hidden: what the process itself needs (its program, its code). */
  own: readonly string[];
  /** Writable, whatever else is hidden (the socket directory of a tool host). */
  ownWritable: readonly string[];
  /** Empty private directories over these paths, shown last (the run's own web storage). */
  scratch: readonly string[];
  /**
   * The most each scratch directory holds, in bytes; past it a write there fails, so what a
   * process keeps in memory outside its heap stays bounded. Absent: the system's default.
   */
  scratchMaxBytes?: number;
  /** Whether it keeps the network; without it only unix sockets reach anything. */
  net: boolean;
  /** Its working directory (created empty inside when nothing shows it). */
  cwd: string;
}

/** Whether `inner` is `outer` or lies below it (both absolute, normalised). */
export function within(inner: string, outer: string): boolean {
  if (outer === "/") return inner.startsWith("/");
  return inner === outer || inner.startsWith(`${outer}/`);
}

/** The nearest ancestor of `path` (itself included) for which `exists` holds, or null. */
export function nearestExisting(path: string, exists: (path: string) => boolean): string | null {
  for (let at = path;; at = dirname(at)) {
    if (exists(at)) return at;
    if (at === "/" || at === ".") return null;
  }
}

/** Number of segments of an absolute path (`/` has none), to order mounts parents first. */
export function depth(path: string): number {
  return path === "/" ? 0 : path.split("/").length - 1;
}

/** `path` and, when it differs and exists, the path it resolves to (symlinks followed). */
export function withRealPath(path: string): string[] {
  try {
    const real = Deno.realPathSync(path);
    return real === path ? [path] : [path, real];
  } catch {
    return [path];
  }
}

/**
 * The directories other people's and other programs' files live in, shown to a sandboxed
 * process only where a grant lies inside them: the user's home, every home, the temp dirs and
 * per-user runtime dirs. Those that exist, in both their written and resolved forms.
 */
export function privateDirectories(
  env: { get(name: string): string | undefined } = Deno.env,
): string[] {
  const candidates = [
    env.get("HOME"),
    "/home",
    "/root",
    "/Users",
    "/tmp",
    "/var/tmp",
    "/private/tmp",
    "/private/var/folders",
    "/run/user",
    env.get("TMPDIR"),
    env.get("XDG_RUNTIME_DIR"),
  ];
  const found = new Set<string>();
  for (const path of candidates) {
    if (path === undefined || !path.startsWith("/") || path === "/") continue;
    try {
      if (!Deno.statSync(path).isDirectory) continue;
    } catch {
      continue;
    }
    for (const form of withRealPath(path.replace(/\/+$/, ""))) found.add(form);
  }
  return [...found];
}
