/**
 * The `deno run` command line of a runner: the sandbox's flags (grants, the data dir denied,
 * imports off without network), its V8 settings, and its entry with the run's storage name.
 * @module
 */

import type { PermissionSet } from "../config/gateway_config.ts";
import { grantsNothing, permissionFlags } from "../config/permission_flags.ts";
import { canonicalPath, pathWithin } from "../config/permission_values.ts";

/**
 * The runner as one pre-built file: `runner/runner_main.ts` and the modules it imports, bundled
 * by `deno task bundle` (`deno task check` fails when it is out of date). One JavaScript file
 * costs a runner less CPU than loading and transpiling ten modules, and every run pays that
 * start.
 */
export const RUNNER_MAIN = new URL("./runner/runner_main.bundle.js", import.meta.url).pathname;

/**
 * The code of `search()`/`describe()`, bundled apart (`runner/runner_discovery.ts`): a runner
 * reads it only for a run whose script uses them, then drops its grant.
 */
export const RUNNER_DISCOVERY =
  new URL("./runner/runner_discovery.bundle.js", import.meta.url).pathname;

/**
 * `canonicalPath` of the denied paths, remembered: they are the server's own data dir, the
 * same for every runner, and resolving one costs a `realpath` walk per spawn.
 */
const canonicalDenied = new Map<string, string>();

function canonicalOnce(path: string): string {
  let canonical = canonicalDenied.get(path);
  if (canonical === undefined) canonicalDenied.set(path, canonical = canonicalPath(path));
  return canonical;
}

function merge(grant: boolean | string[] | undefined, own: string[]): boolean | string[] {
  if (grant === true) return true;
  return [...own, ...(Array.isArray(grant) ? grant : [])];
}

/** Whether a caller's grant already covers `path` (then revoking it would narrow their grant). */
function grantCoversPath(grant: boolean | string[] | undefined, path: string): boolean {
  return grant === true || (Array.isArray(grant) && grant.some((g) => pathWithin(path, g)));
}

/**
 * The URL a runner is started from: the runner's file with `storage` as its query. Without
 * `--location`, Deno keys a process's web storage by its main module's URL, so a storage name
 * no other live runner holds gives the run `localStorage` and a Cache API of its own that
 * start empty. `--location` did the same, but setting it up cost every
 * runner CPU before its script. The names are reused
 * slots (`RunStorageSweep`), since Deno also keeps its analysis of a module under its URL.
 */
export function runnerMainUrl(storage: string): string {
  const url = new URL("file:///");
  url.pathname = RUNNER_MAIN;
  url.search = `storage=${encodeURIComponent(storage)}`;
  return url.href;
}

/** The `.js` file beside a runner's TypeScript script, for a script that is JavaScript. */
export function javaScriptTwin(scriptPath: string): string {
  return scriptPath.replace(/\.ts$/, ".js");
}

/**
 * Whether a run with `permissions` can load no code but its runner and its script: no network
 * (so no remote or npm import) and nothing to read (so no local module). A runner started ahead
 * of its run (the pool's) then compiles every function as it loads (V8's `--no-lazy`) instead of
 * at its first call. Lazily, V8 parses a function twice (a pre-parse as the file loads, a full
 * parse at the first call), and nearly all of the runner's code is called on every run: compiled
 * as it loads, before its run comes, it is not compiled between the run's hand-over and its
 * answer. Not for a run that may import (every function of a library it imports would be
 * compiled, called or not), nor for a runner started for its run, which would wait for the
 * whole of it.
 */
export function loadsOnlyItsScript(permissions: PermissionSet): boolean {
  return grantsNothing(permissions.net) && grantsNothing(permissions.read);
}

/** Builds the `deno run` flags of a runner. Exported for tests of the sandbox flags. */
export function runnerFlags(
  options: {
    permissions: PermissionSet;
    scriptPath: string;
    socketPath: string;
    maxMemoryMb: number;
    /** Denied whatever the grant says (the data dir). @default {[]} */
    deniedPaths?: readonly string[];
    /**
     * Started ahead of its run (a pooled runner): compiled as it loads when it can load no
     * other code ({@linkcode loadsOnlyItsScript}). @default {false}
     */
    compileAtLoad?: boolean;
    /**
     * Names the run's private web storage (see {@linkcode runnerMainUrl}).
     * @default {"0"}
     */
    storage?: string;
  },
): string[] {
  const { permissions, scriptPath, socketPath } = options;
  const netHosts = Array.isArray(permissions.net) ? permissions.net : [];
  // Imports: none without network; only from the granted hosts with a host list (Deno's default
  // import allow-list, esm.sh and friends, would otherwise open a channel the grant never named,
  // and npm: would reach the registry); anything with unrestricted network.
  const importFlags = permissions.net === true
    ? []
    : netHosts.length > 0
    ? [`--allow-import=${netHosts.join(",")}`, "--no-npm"]
    : ["--no-remote", "--no-npm"];
  const grants: PermissionSet = {
    ...permissions,
    read: merge(permissions.read, [
      scriptPath,
      javaScriptTwin(scriptPath),
      socketPath,
      RUNNER_DISCOVERY,
    ]),
    write: merge(permissions.write, [socketPath]),
    net: merge(permissions.net, [`unix:${socketPath}`]),
  };
  const denied = [...new Set((options.deniedPaths ?? []).flatMap((p) => [p, canonicalOnce(p)]))];
  const denyFlags = denied.length === 0
    ? []
    : [`--deny-read=${denied.join(",")}`, `--deny-write=${denied.join(",")}`];
  // The runner drops its socket grants once connected, unless the caller's own grant covers
  // the path (Deno revokes a covering grant too, which would narrow what the caller asked for).
  const revoke = !grantCoversPath(permissions.read, socketPath) &&
    !grantCoversPath(permissions.write, socketPath);
  return [
    "run",
    "--no-prompt",
    "--no-config",
    "--no-lock",
    // The script is a new file for every run: its V8 code cache would be written once, never
    // read, and grow Deno's shared cache database by one entry per run.
    "--no-code-cache",
    "--quiet",
    ...importFlags,
    // `--single-threaded`: no V8 platform threads (concurrent GC and compilers) to start and
    // stop; a run is short and its heap small, so the start costs less CPU than they save
    // (throughput of runs in flight). `--no-lazy`: see `loadsOnlyItsScript`.
    `--v8-flags=--max-old-space-size=${options.maxMemoryMb},--single-threaded` +
    (options.compileAtLoad === true && loadsOnlyItsScript(permissions) ? ",--no-lazy" : ""),
    ...permissionFlags(grants),
    ...denyFlags,
    runnerMainUrl(options.storage ?? "0"),
    socketPath,
    revoke ? "revoke" : "keep",
    ...(grantCoversPath(permissions.read, RUNNER_DISCOVERY) ? [] : ["revoke-discovery"]),
  ];
}
