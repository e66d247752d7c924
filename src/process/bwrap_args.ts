/**
 * Turns a {@linkcode SandboxView} into bubblewrap (`bwrap`) arguments: a new mount namespace
 * built from an empty root, holding the system's read-only directories (or the whole file
 * system when the grant is everything), each grant, the hidden and private directories
 * replaced by empty ones, then the process's own files; a PID namespace whose first process is
 * bwrap's own reaper, so ending the bwrap the gateway started ends everything inside (and the
 * program keeps the signal semantics of an ordinary process: it can end itself);
 * `--die-with-parent` at both levels, so nothing outlives the gateway; a network namespace of
 * its own when the view has no network (unix sockets on the file system still connect).
 *
 * No `--new-session`: a process the gateway starts never holds a terminal to drive (a tool host
 * starts detached, and a runner of a server that has a controlling terminal starts through
 * setsid(1), `runner_spawn.ts`), and a session of its own would also put it in a scheduling
 * group of its own, which on a busy machine made every call between a runner and the server
 * wait two to four times longer.
 * @module
 */

import { depth, nearestExisting, type SandboxView, within } from "./sandbox_view.ts";

/** What bwrap needs to know of a path on the host. */
export type PathKind = "dir" | "file" | "symlink" | null;

/** How the arguments learn about the host's file system (injected by tests). */
export interface HostPaths {
  /** The kind of `path` without following a final symlink; null when it does not exist. */
  kind(path: string): PathKind;
  /** The target of the symlink `path`. */
  readLink(path: string): string;
}

/**
 * The system's directories every process needs read-only (its libraries, `/etc` for name
 * resolution, certificates and time zones). On merged-/usr systems `/bin`, `/lib`… are
 * symlinks into `/usr` and are recreated as such.
 */
export const SYSTEM_PATHS: readonly string[] = [
  "/usr",
  "/etc",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
];

interface Mount {
  dest: string;
  /** Whether what is under `dest` shows the host's files (a bind) or nothing (a tmpfs). */
  shows: boolean;
}

/** A host file system read through Deno (the default of {@linkcode bwrapArgs}). */
export const DENO_HOST_PATHS: HostPaths = {
  kind(path) {
    try {
      const info = Deno.lstatSync(path);
      return info.isSymlink ? "symlink" : info.isDirectory ? "dir" : "file";
    } catch {
      return null;
    }
  },
  readLink: (path) => Deno.readLinkSync(path),
};

/**
 * The bwrap arguments (without the program) that start a process seeing `view`. Grants that
 * do not exist yet (a file a run may create) are shown through their nearest existing parent;
 * Deno's own permissions still decide what inside it the process may touch.
 */
export function bwrapArgs(view: SandboxView, host: HostPaths = DENO_HOST_PATHS): string[] {
  const args: string[] = [
    "--die-with-parent",
    "--unshare-pid",
    ...(view.net ? [] : ["--unshare-net"]),
  ];
  const mounts: Mount[] = [];
  const exists = (path: string) => host.kind(path) !== null;
  /** Whether `path` shows the host's file there, given the mounts so far. */
  const shows = (path: string) => {
    let last: Mount | undefined;
    for (const mount of mounts) if (within(path, mount.dest)) last = mount;
    return last?.shows === true;
  };
  const bind = (path: string, writable: boolean) => {
    if (!exists(path)) return;
    args.push(writable ? "--bind" : "--ro-bind", path, path);
    mounts.push({ dest: path, shows: true });
  };
  const empty = (path: string) => {
    const kind = host.kind(path);
    if (kind === null || !shows(path)) return;
    if (kind === "dir") {
      args.push("--tmpfs", path);
      mounts.push({ dest: path, shows: false });
    } else {
      // The null device on bwrap's nodev mount: opening it fails (EACCES), as a secret should.
      args.push("--ro-bind", "/dev/null", path);
      mounts.push({ dest: path, shows: false });
    }
  };

  const writeAll = view.write === true;
  const readAll = writeAll || view.read === true;
  if (readAll) {
    args.push(writeAll ? "--bind" : "--ro-bind", "/", "/");
    mounts.push({ dest: "/", shows: true });
  } else {
    for (const path of SYSTEM_PATHS) {
      const kind = host.kind(path);
      if (kind === "symlink") args.push("--symlink", host.readLink(path), path);
      else if (kind === "dir") bind(path, false);
    }
  }

  // Grants, parents first; those inside a private directory come back after it is emptied.
  const secret = [...view.hidden, ...view.private];
  const grants = grantList(view, exists).filter((g) =>
    !view.hidden.some((hidden) => within(g.path, hidden))
  );
  const insidePrivate = (path: string) => view.private.some((dir) => within(path, dir));
  for (const grant of grants) {
    if (insidePrivate(grant.path)) continue;
    // Under an unrestricted read, a read grant shows nothing new.
    if (readAll && !grant.writable) continue;
    if (writeAll) continue;
    bind(grant.path, grant.writable);
  }
  args.push("--proc", "/proc", "--dev", "/dev");
  mounts.push({ dest: "/proc", shows: true }, { dest: "/dev", shows: true });
  if (!shows("/tmp")) {
    args.push("--tmpfs", "/tmp");
    mounts.push({ dest: "/tmp", shows: false });
  }
  for (const path of [...new Set(secret)].sort(byDepth)) empty(path);
  for (const grant of grants) {
    if (insidePrivate(grant.path)) bind(grant.path, grant.writable || writeAll);
  }
  // Again: a grant shown again inside a private directory may hold a hidden one.
  for (const path of [...view.hidden].sort(byDepth)) empty(path);
  for (const path of view.own) bind(path, false);
  for (const path of view.ownWritable) bind(path, true);
  // Last: a secret stays empty whatever shows the directory it is in.
  for (const path of view.masked) empty(path);
  const size = view.scratchMaxBytes === undefined ? [] : ["--size", String(view.scratchMaxBytes)];
  for (const path of view.scratch) {
    if (host.kind(path) === "dir") args.push(...size, "--tmpfs", path);
  }
  if (!shows(view.cwd)) args.push("--dir", view.cwd);
  args.push("--chdir", view.cwd);
  return args;
}

/** Parents first, then by name: an inner mount must come after the one it sits in. */
function byDepth(a: string, b: string): number {
  return depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * The view's grants as paths to show, each writable when a write grant covers it, missing
 * ones replaced by their nearest existing parent (never `/` itself: a grant of a path that
 * does not exist shows nothing rather than everything).
 */
function grantList(
  view: SandboxView,
  exists: (path: string) => boolean,
): { path: string; writable: boolean }[] {
  const found = new Map<string, boolean>();
  const add = (path: string, writable: boolean) => {
    const shown = nearestExisting(path, exists);
    if (shown === null || shown === "/") return;
    found.set(shown, (found.get(shown) ?? false) || writable);
  };
  if (view.read !== true) { for (const path of view.read) add(path, false); }
  if (view.write !== true) { for (const path of view.write) add(path, true); }
  return [...found].map(([path, writable]) => ({ path, writable })).sort((a, b) =>
    byDepth(a.path, b.path)
  );
}
