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
 * (script and channel socket), and web storage of its own that ends with it.
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
    scratch: [webStorageScratch(denoDir)],
    net,
    cwd: options.cwd,
  };
}

/**
 * Where Deno keeps web storage, made once per cache: an empty directory of the runner's own is
 * mounted there, so a run's `localStorage` ends with it (and mounting needs the directory).
 */
function webStorageScratch(denoDir: string): string {
  const dir = join(denoDir, "location_data");
  if (!madeScratch.has(dir)) {
    Deno.mkdirSync(dir, { recursive: true });
    madeScratch.add(dir);
  }
  return dir;
}

const madeScratch = new Set<string>();
/** Looked up once: the private directories and where the Deno binary lives. */
let privateDirs: string[] | undefined;
let denoHome: string | undefined;
