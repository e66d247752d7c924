/**
 * Starts one runner subprocess: a fresh Deno process in its own process group with no
 * permissions beyond its own channel socket and its script file (plus what the caller was
 * granted), the gateway's data dir always denied, remote and npm imports off unless network
 * access was granted (and then only from the granted hosts), and web storage private to the run
 * (SPEC §5, SBX-02, issue 9 items 2, 8, 12).
 * @module
 */

import { basename, dirname, join } from "node:path";
import type { PermissionSet } from "../config/gateway_config.ts";
import { permissionFlags } from "../config/permission_flags.ts";
import { canonicalPath, pathWithin } from "../config/permission_values.ts";
import { terminateProcess, terminateProcessGroup } from "../process/terminate_process_group.ts";
import {
  namespacedChildPid,
  type OsSandbox,
  unwrapNamespacedStatus,
} from "../process/os_sandbox.ts";
import { privateDirectories, type SandboxView } from "../process/sandbox_view.ts";
import { END_MARKER_PREFIX } from "../protocol/run_end_marker.ts";
import {
  leadsGroup,
  mayStartProcesses,
  spawnRunnerProcess,
  terminalSignalsReach,
} from "./runner_spawn.ts";
import type {
  ChannelExpectation,
  RunChannelServer,
  RunnerConnection,
} from "./run_channel_server.ts";
import { type RunStorageSweep, storageDirs, storageKey } from "./run_storage_sweep.ts";
import type { RunnerSlots } from "./runner_slots.ts";

/** A started runner waiting for (or running) its script. */
export interface RunnerProcess {
  /**
   * Writes the run's script (0600, in place: at most exec.maxSourceBytes, and not through the
   * runtime's blocking pool, two thread hops on every run's path, issue 12) as TypeScript, or
   * as JavaScript when `javaScript` (Deno then compiles and caches nothing). Answers the path
   * written, which the kill removes. Throws what the write threw.
   */
  writeScript(code: string, javaScript: boolean): string;
  /** The directory holding the script and the channel socket (its slot's, in `runsDir`). */
  dir: string;
  /** The process started: Deno, or the bwrap around it (see `namespaced`). */
  child: Deno.ChildProcess;
  /**
   * How the runner's Deno exited, as if it had been started directly (a bwrap around it
   * reports a signal as an exit code; see `unwrapNamespacedStatus`).
   */
  status: Promise<Deno.CommandStatus>;
  /** The pid whose memory is the run's: Deno's own (inside a bwrap: its only child), or null. */
  memoryPid(): number | null;
  /** Resolves when the runner has connected and presented its token. */
  connection: Promise<RunnerConnection>;
  /**
   * The connection once `connection` has resolved, else null: a pooled runner connected long
   * before its run, and the run need not wait a turn (and a timer) to learn it.
   */
  readonly ready?: RunnerConnection | null;
  /**
   * What the runner writes on stdout and stderr before its exit code as its process exits
   * (`protocol/run_end_marker.ts`): its nonce is this runner's alone.
   */
  endMarker: string;
  permissions: PermissionSet;
  maxMemoryMb: number;
  /**
   * Ends the runner, with its whole process group when it leads one (a runner that may start
   * processes, {@linkcode mayStartProcesses}): waits up to `exitWaitMs` for it to exit by itself,
   * else sends TERM; then KILL after `graceMs`; then removes the script, its compiled copy and
   * the run's web storage. Every call resolves when all of that is done (the first call's
   * timings apply); never rejects.
   */
  kill(graceMs?: number, exitWaitMs?: number): Promise<void>;
}

/** How to start a runner. */
export interface RunnerSpawnOptions {
  channel: RunChannelServer;
  /**
   * Private (0700) directory where each runner gets its own script (0600) and channel socket
   * files, named by a random id. Files, not a directory per runner: a run then costs no mkdir
   * and two unlinks instead of two tree removals (issue 12: CPU per run).
   */
  runsDir: string;
  permissions: PermissionSet;
  maxMemoryMb: number;
  /** Working directory of the process; relative grants were resolved against it already. */
  cwd: string;
  /** Environment variables passed through (only names the run was granted). */
  env: Record<string, string>;
  /** Deno's cache directory, so runs reuse transpiled code. */
  denoDir: string;
  /** Directories the run is denied whatever it was granted (the data dir). @default {[]} */
  deniedPaths?: readonly string[];
  /**
   * The operating-system layer under Deno's permissions (`exec.osSandbox`): the runner starts
   * in a view of only its grants, where `hiddenPaths` never exist. Without it, a plain spawn.
   */
  sandbox?: OsSandbox;
  /**
   * Directories never shown inside the OS sandbox, whatever the grant (the data dir, the
   * user's gateway data dir with every root's state, the run scratch space). @default {[]}
   */
  hiddenPaths?: readonly string[];
  /**
   * Told the pid (= process group) of every runner once it has connected, so a later server can
   * reap it. Not at the spawn: reading the new process's start time then waits in the kernel
   * until it has exec'd Deno, stalling the event loop; and a runner whose server dies before it
   * connects finds no listener and exits by itself.
   */
  onSpawn?: (pid: number) => void;
  /**
   * Removes the run's web storage in a batch with other runs' after it ends; without it, the
   * storage paths are removed one by one as the runner is killed.
   */
  storageSweep?: RunStorageSweep;
  /**
   * Names the script file by a slot reused once its runner is dead and its files removed
   * (see `runner_slots.ts`); without it, by the runner's random id.
   */
  slots?: RunnerSlots;
}

/**
 * The runner as one pre-built file: `runner/runner_main.ts` and the modules it imports, bundled
 * by `deno task bundle:runner` (`runner/runner_bundle_test.ts` fails when it is out of date).
 * One JavaScript file costs a runner less CPU than loading and transpiling ten modules, and
 * every run pays that start (issue 12: throughput of runs in flight).
 */
export const RUNNER_MAIN = new URL("./runner/runner_main.bundle.js", import.meta.url).pathname;

/**
 * The code of `search()`/`describe()`, bundled apart (`runner/runner_discovery.ts`): a runner
 * reads it only for a run whose script uses them, then drops its grant.
 */
export const RUNNER_DISCOVERY =
  new URL("./runner/runner_discovery.bundle.js", import.meta.url).pathname;

/** Two hex digits of every byte value, so a token is a string concatenation per byte. */
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

function randomHex(bytes: number): string {
  let hex = "";
  for (const b of crypto.getRandomValues(new Uint8Array(bytes))) hex += HEX[b];
  return hex;
}

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
 * start empty (issue 9, item 8). `--location` did the same, but setting it up cost every
 * runner ≈ 3.4 M instructions (≈ 0.9 ms of CPU; callgrind, issue 12). The names are reused
 * slots (`RunStorageSweep`), since Deno also keeps its analysis of a module under its URL.
 */
export function runnerMainUrl(storage: string): string {
  const url = new URL("file:///");
  url.pathname = RUNNER_MAIN;
  url.search = `storage=${encodeURIComponent(storage)}`;
  return url.href;
}

/**
 * Where Deno keeps the web storage named `name` (a runner's main module URL, or a
 * `--location` origin) under `denoDir`, to remove it after the run.
 */
export function storagePaths(denoDir: string, name: string): string[] {
  const key = storageKey(name);
  return storageDirs(denoDir).map((dir) => join(dir, key));
}

/**
 * Where Deno keeps the compiled (type-stripped) copies of the modules under `dir`: its cache
 * mirrors a local module's path under `gen/file/`.
 */
export function compiledCopyDir(denoDir: string, dir: string): string {
  return join(denoDir, "gen", "file", dir.replace(/^\/+/, ""));
}

/** Where Deno keeps the compiled copy of the TypeScript module `path`: `<path>.js` there. */
export function compiledCopyPath(denoDir: string, path: string): string {
  return `${compiledCopyDir(denoDir, dirname(path))}/${basename(path)}.js`;
}

/** The `.js` file beside a runner's TypeScript script, for a script that is JavaScript. */
function javaScriptTwin(scriptPath: string): string {
  return scriptPath.replace(/\.ts$/, ".js");
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
    // (issue 12: throughput of runs in flight).
    `--v8-flags=--max-old-space-size=${options.maxMemoryMb},--single-threaded`,
    ...permissionFlags(grants),
    ...denyFlags,
    runnerMainUrl(options.storage ?? "0"),
    socketPath,
    revoke ? "revoke" : "keep",
    ...(grantCoversPath(permissions.read, RUNNER_DISCOVERY) ? [] : ["revoke-discovery"]),
  ];
}

/** Spawns a runner and registers its one-time token with the channel server. */
export async function spawnRunner(options: RunnerSpawnOptions): Promise<RunnerProcess> {
  const runnerId = randomHex(8);
  const slot = options.slots?.take();
  // A directory per slot, kept for the slot's next runner (a mkdir that finds it is cheap):
  // the OS sandbox shows a runner its own directory and nothing else of `runsDir`.
  const dir = join(options.runsDir, slot === undefined ? runnerId : `${slot}`);
  const scriptPath = join(dir, "script.ts");
  const socketPath = join(dir, `${runnerId}.sock`);
  const token = randomHex(32);
  const endNonce = randomHex(16);
  let expectation: ChannelExpectation;
  try {
    Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
    expectation = options.channel.listen(socketPath, token);
  } catch (error) {
    if (slot !== undefined) options.slots?.give(slot);
    throw error;
  }
  // Storage named by a slot the sweep hands out again only once the storage is gone; without a
  // sweep, by this runner's random id.
  const storageSlot = options.storageSweep?.takeSlot();
  const storage = storageSlot === undefined ? runnerId : `${storageSlot}`;
  const storageName = runnerMainUrl(storage);
  const sandbox = options.sandbox?.active ? options.sandbox : undefined;
  // A runner that may start processes leads a process group of its own, so its end takes
  // whatever it started (SBX-06); one that cannot is ended alone, and spawned without
  // setsid(1)'s exec (≈ 1 ms of CPU per run) and without a group signal that finds nothing
  // (an Error built per signal; issue 12: CPU per run). Inside the OS sandbox's PID namespace
  // everything it starts ends with it, so no group is needed for that. Unless a terminal's
  // Ctrl-C could reach the server's group: it would kill the runs a graceful stop lets finish.
  const ownGroup = (sandbox?.kind !== "bwrap" && mayStartProcesses(options.permissions)) ||
    terminalSignalsReach();
  let child: Deno.ChildProcess;
  let viaSetsid: boolean;
  let namespaced: boolean;
  try {
    ({ child, viaSetsid, namespaced } = spawnRunnerProcess(options, ownGroup, {
      args: runnerFlags({
        permissions: options.permissions,
        scriptPath,
        socketPath,
        maxMemoryMb: options.maxMemoryMb,
        ...(options.deniedPaths ? { deniedPaths: options.deniedPaths } : {}),
        storage,
      }),
      ...(options.sandbox
        ? {
          confine: (argv: string[]) =>
            options.sandbox!.command(argv, runnerView(options, { dir, socketPath })),
        }
        : {}),
    }));
  } catch (error) {
    expectation.cancel();
    if (slot === undefined) removeQuietly(dir);
    else options.slots?.give(slot);
    if (storageSlot !== undefined) options.storageSweep?.release(storageSlot, storageName);
    throw error;
  }
  // The token and the end marker's nonce go over stdin, never argv or env, so
  // /proc/<pid>/cmdline and environ hold no secret (SEC-07).
  const writer = child.stdin.getWriter();
  await Promise.all([
    writer.write(new TextEncoder().encode(`${token}\n${endNonce}\n`)),
    writer.close(),
  ]);
  let killing: Promise<void> | undefined;
  // A runner that connected is Deno running, so setsid(1) has made it a group leader already.
  let connected = false;
  let exited = false;
  let ready: RunnerConnection | null = null;
  const status = namespaced ? child.status.then(unwrapNamespacedStatus) : child.status;
  child.status.then(() => (exited = true));
  /** Deno's pid inside bwrap, once found (it never changes). */
  let inner: number | null = null;
  const memoryPid = namespaced
    ? () => exited ? null : inner ??= namespacedChildPid(child.pid)
    : () => exited ? null : child.pid;
  expectation.connection.then((connection) => {
    ready = connection;
    connected = true;
    options.onSpawn?.(child.pid);
  });
  /** The script file written, with Deno's copy of it if it is TypeScript; null before. */
  let written: string[] | null = null;
  const writeScript = (code: string, javaScript: boolean) => {
    const path = javaScript ? javaScriptTwin(scriptPath) : scriptPath;
    // Inside bwrap, Deno's cache is read-only: no compiled copy is left to remove.
    written = javaScript || namespaced ? [path] : [path, compiledCopyPath(options.denoDir, path)];
    Deno.writeTextFileSync(path, code, { mode: 0o600 });
    return path;
  };
  const kill = (graceMs = 500, exitWaitMs = 0) =>
    killing ??= end(graceMs, exitWaitMs).finally(() => {
      // The files go only once the group is dead, and the slot only once they are gone, so a
      // runner given the same name later never has its script removed by this one's end.
      // Unlinked in place: an async removal is two hops through the runtime's blocking pool,
      // ≈ 3× the CPU of the unlink itself (issue 12: CPU per run). Only what was written: a
      // failed unlink builds an error (a stack capture) for nothing.
      for (const path of written ?? []) removeFileQuietly(path);
      if (slot === undefined) removeQuietly(dir);
      else options.slots?.give(slot);
    });
  const end = async (graceMs: number, exitWaitMs: number) => {
    expectation.cancel();
    if (!ownGroup) {
      await terminateProcess(child, () => exited, { graceMs, exitWaitMs });
    } else {
      await endGroup(graceMs, exitWaitMs);
    }
    if (options.storageSweep && storageSlot !== undefined) {
      options.storageSweep.release(storageSlot, storageName);
      return;
    }
    for (const path of storagePaths(options.denoDir, storageName)) {
      await Deno.remove(path, { recursive: true }).catch(() => undefined);
    }
  };
  const endGroup = async (graceMs: number, exitWaitMs: number) => {
    // Stopped before setsid(1) made it a group leader, it runs no script yet: KILL it alone
    // (a group signal would miss it).
    if (viaSetsid && !connected && !leadsGroup(child.pid)) {
      try {
        child.kill("SIGKILL");
      } catch {
        // exited already
      }
    }
    // Even when the runner exited, a child it forked may live on in its group: it is KILLed too.
    await terminateProcessGroup(child.pid, child.status, { graceMs, exitWaitMs });
  };
  return {
    writeScript,
    dir,
    child,
    status,
    memoryPid,
    connection: expectation.connection,
    get ready() {
      return ready;
    },
    endMarker: `${END_MARKER_PREFIX}${endNonce}:`,
    permissions: options.permissions,
    maxMemoryMb: options.maxMemoryMb,
    kill,
  };
}

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
function runnerView(
  options: RunnerSpawnOptions,
  own: { dir: string; socketPath: string },
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
    own: [denoHome ??= dirname(Deno.realPathSync(Deno.execPath())), RUNNER_DIR, denoDir, own.dir],
    ownWritable: net ? [join(denoDir, "remote"), join(denoDir, "npm")] : [],
    scratch: [join(denoDir, "location_data")],
    net,
    cwd: options.cwd,
  };
}

/** The directory of the runner's bundles. */
const RUNNER_DIR = dirname(RUNNER_MAIN);
/** Looked up once: the private directories and where the Deno binary lives. */
let privateDirs: string[] | undefined;
let denoHome: string | undefined;

/** Removes a directory and what is left in it; one already gone is what was wanted. */
function removeQuietly(path: string): void {
  try {
    Deno.removeSync(path, { recursive: true });
  } catch {
    // not there
  }
}

/** Removes a file; one already gone (or never written) is what was wanted. */
function removeFileQuietly(path: string): void {
  try {
    Deno.removeSync(path);
  } catch {
    // not there
  }
}
