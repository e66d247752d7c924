/**
 * What the operating-system sandbox shows a runner (`exec.osSandbox`): its grants, never the
 * gateway's own directories, the homes and temp dirs only where a grant lies inside them, and
 * what it needs to run.
 * @module
 */

import { dirname, join } from "node:path";
import type { PermissionSet } from "../config/gateway_config.ts";
import { privateDirectories, type SandboxView } from "../process/sandbox_view.ts";

/** The paths of a grant that the OS sandbox shows (`true`: everything). */
function grantPaths(grant: boolean | string[] | undefined): true | string[] {
  return grant === true ? true : Array.isArray(grant) ? grant : [];
}

/**
 * What the OS sandbox shows a runner: its read (and FFI library) and write grants, never the
 * gateway's own directories, the private directories only where a grant lies inside them,
 * and what it needs to run — Deno, the runner's code, Deno's cache (read-only: a run adds
 * nothing there but, with network, the remote and npm modules it imports), its slot directory
 * (script and channel socket), and web storage and a compiled-code directory of its own that
 * end with it.
 */
export function runnerView(
  options: {
    permissions: PermissionSet;
    denoDir: string;
    cwd: string;
    /** Never shown, whatever the grant (the data dirs, every run's scratch space). */
    hiddenPaths?: readonly string[];
    /** The runner's bundles (`runner/`). */
    runnerDir: string;
  },
  own: { dir: string },
): SandboxView {
  const { permissions, denoDir } = options;
  const read = grantPaths(permissions.read);
  const ffi = grantPaths(permissions.ffi);
  const net = permissions.net === true ||
    (Array.isArray(permissions.net) && permissions.net.length > 0);
  return {
    read: read === true || ffi === true ? true : [...read, ...ffi],
    write: grantPaths(permissions.write),
    hidden: options.hiddenPaths ?? [],
    private: privateDirs ??= privateDirectories(),
    masked: [],
    own: [
      denoHome ??= dirname(Deno.realPathSync(Deno.execPath())),
      options.runnerDir,
      denoDir,
      own.dir,
    ],
    ownWritable: net ? [join(denoDir, "remote"), join(denoDir, "npm")] : [],
    // Deno keeps the JavaScript it compiles a TypeScript module to under `gen`, and retries a
    // write that fails for a while before it runs the module: over a read-only cache every
    // typed script would wait for those retries. The runner's own, empty `gen` takes the
    // write instead, and ends with it (a compiled script is never seen by another process).
    // Only where the sandbox makes a scratch directory a private mount (bubblewrap): macOS's
    // profile can only open the directory itself for writing, which would keep what a script
    // compiles in the user's cache.
    scratch: [
      scratchDirectory(denoDir, "location_data"),
      ...(Deno.build.os === "linux" ? [scratchDirectory(denoDir, "gen")] : []),
    ],
    // A script can have Deno compile modules it makes itself (`data:` imports) into `gen`:
    // bounded, a full directory only makes its compiling slower.
    scratchMaxBytes: RUNNER_SCRATCH_BYTES,
    net,
    cwd: options.cwd,
  };
}

/**
 * A directory of Deno's cache a runner gets an empty one of its own in place of (web storage,
 * so a run's `localStorage` ends with it; compiled code), made once per cache: mounting needs
 * the directory.
 */
function scratchDirectory(denoDir: string, name: string): string {
  const dir = join(denoDir, name);
  if (!madeScratch.has(dir)) {
    Deno.mkdirSync(dir, { recursive: true });
    madeScratch.add(dir);
  }
  return dir;
}

/** The most a runner's web storage or compiled-code directory holds (bytes). */
export const RUNNER_SCRATCH_BYTES = 32 * 1024 * 1024;

const madeScratch = new Set<string>();
/** Looked up once: the private directories and where the Deno binary lives. */
let privateDirs: string[] | undefined;
let denoHome: string | undefined;
