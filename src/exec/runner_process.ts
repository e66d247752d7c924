/**
 * Starts one runner subprocess: a fresh Deno process with no permissions beyond its own channel
 * socket and its script file (plus what the caller was granted; flags in `runner_flags.ts`),
 * under the operating-system sandbox when it is on (`runner_view.ts`: only its grants exist,
 * in a PID namespace, dying with the gateway) or else through the parent-death guard, with
 * web storage private to the run, in a process group of its own when it may start processes.
 * @module
 */

import { basename, dirname, join } from "node:path";
import type { PermissionSet } from "../config/gateway_config.ts";
import { javaScriptTwin, RUNNER_MAIN, runnerFlags, runnerMainUrl } from "./runner_flags.ts";
import type { OsSandbox } from "../process/os_sandbox.ts";
import { SupervisedChild } from "../process/supervised_child.ts";
import { runnerView } from "./runner_view.ts";
import { END_MARKER_PREFIX } from "../protocol/run_end_marker.ts";
import { mayStartProcesses, terminalSignalsReach } from "./runner_spawn.ts";
import type {
  ChannelExpectation,
  RunChannelServer,
  RunnerConnection,
} from "./run_channel_server.ts";
import { type RunStorageSweep, storageDirs, storageKey } from "./run_storage_sweep.ts";
import type { RunnerSlots } from "./runner_slots.ts";
import type { RunnerModuleCache } from "./runner_module_cache.ts";

/** A started runner waiting for (or running) its script. */
export interface RunnerProcess {
  /**
   * Writes the run's script (0600, in place: at most exec.maxSourceBytes, and not through the
   * runtime's blocking pool, two thread hops on every run's path) as TypeScript, or
   * as JavaScript when `javaScript` (Deno then compiles and caches nothing). Answers the path
   * written, which the kill removes. Throws what the write threw.
   */
  writeScript(code: string, javaScript: boolean): string;
  /** The directory holding the script and the channel socket (its slot's, in `runsDir`). */
  dir: string;
  /** The process started: Deno, or the bwrap around it (its stdout and stderr are piped). */
  child: SupervisedChild;
  /**
   * How the runner's Deno exited, as if it had been started directly (a bwrap around it
   * reports a signal as an exit code; see `unwrapNamespacedStatus`).
   */
  status: Promise<Deno.CommandStatus>;
  /** The pid whose memory is the run's: Deno's own (inside bwrap: found under the namespace's reaper), or null. */
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
   * and two unlinks instead of two tree removals (CPU per run).
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
   * Puts Deno's analysis of the runner's entry URL in Deno's cache once its first runner has
   * connected, for the runners under the OS sandbox, which cannot write it (see
   * `runner_module_cache.ts`).
   */
  moduleCache?: RunnerModuleCache;
  /**
   * Started ahead of its run (the pool's): compiled as it loads (`runner_flags.ts`,
   * `loadsOnlyItsScript`). @default {false}
   */
  compileAtLoad?: boolean;
  /**
   * Names the script file by a slot reused once its runner is dead and its files removed
   * (see `runner_slots.ts`); without it, by the runner's random id.
   */
  slots?: RunnerSlots;
}

/** The Deno binary runners are started with (the server's own), looked up once. */
let denoPath: string | undefined;

/** Two hex digits of every byte value, so a token is a string concatenation per byte. */
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

function randomHex(bytes: number): string {
  let hex = "";
  for (const b of crypto.getRandomValues(new Uint8Array(bytes))) hex += HEX[b];
  return hex;
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
  // whatever it started; one that cannot is ended alone, and spawned without
  // setsid(1)'s exec (CPU on every run) and without a group signal that finds nothing
  // (an Error built per signal). Inside the OS sandbox's PID namespace
  // everything it starts ends with it, so no group is needed for that. Unless a terminal's
  // Ctrl-C could reach the server's group: it would kill the runs a graceful stop lets finish.
  const ownGroup = (sandbox?.kind !== "bwrap" && mayStartProcesses(options.permissions)) ||
    terminalSignalsReach();
  let child: SupervisedChild;
  try {
    const osSandbox = options.sandbox;
    child = new SupervisedChild({
      argv: [
        denoPath ??= Deno.execPath(),
        ...runnerFlags({
          permissions: options.permissions,
          scriptPath,
          socketPath,
          maxMemoryMb: options.maxMemoryMb,
          ...(options.deniedPaths ? { deniedPaths: options.deniedPaths } : {}),
          storage,
          ...(options.compileAtLoad ? { compileAtLoad: true } : {}),
        }),
      ],
      cwd: options.cwd,
      clearEnv: true,
      env: {
        ...options.env,
        DENO_DIR: options.denoDir,
        NO_COLOR: "1",
        DENO_NO_UPDATE_CHECK: "1",
      },
      // Through the parent-death guard when the sandbox itself is off.
      ...(osSandbox
        ? {
          confine: (argv: readonly string[]) =>
            osSandbox.command(
              argv,
              runnerView({ ...options, runnerDir: dirname(RUNNER_MAIN) }, { dir }),
            ),
        }
        : {}),
      ownGroup,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    });
  } catch (error) {
    expectation.cancel();
    if (slot === undefined) removeQuietly(dir);
    else options.slots?.give(slot);
    if (storageSlot !== undefined) options.storageSweep?.release(storageSlot, storageName);
    throw error;
  }
  // The token and the end marker's nonce go over stdin, never argv or env, so
  // /proc/<pid>/cmdline and environ hold no secret.
  await child.writeStdin(new TextEncoder().encode(`${token}\n${endNonce}\n`), true);
  let killing: Promise<void> | undefined;
  const namespaced = child.namespaced;
  let ready: RunnerConnection | null = null;
  expectation.connection.then((connection) => {
    ready = connection;
    // A runner that connected is Deno running: setsid(1) has made it a group leader already.
    child.groupLed();
    options.onSpawn?.(child.pid);
    // A slot's URL is analysed once, beside no runner's start: its later runners find it.
    if (sandbox !== undefined && storageSlot !== undefined) options.moduleCache?.warm(storageName);
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
      // several times the CPU of the unlink itself, on every run. Only what was written: a
      // failed unlink builds an error (a stack capture) for nothing.
      for (const path of written ?? []) removeFileQuietly(path);
      if (slot === undefined) removeQuietly(dir);
      else options.slots?.give(slot);
    });
  const end = async (graceMs: number, exitWaitMs: number) => {
    expectation.cancel();
    // Even when the runner exited, a child it forked may live on in its group: it is KILLed too.
    await child.terminate({ graceMs, exitWaitMs });
    if (options.storageSweep && storageSlot !== undefined) {
      options.storageSweep.release(storageSlot, storageName);
      return;
    }
    for (const path of storagePaths(options.denoDir, storageName)) {
      await Deno.remove(path, { recursive: true }).catch(() => undefined);
    }
  };
  return {
    writeScript,
    dir,
    child,
    status: child.status,
    memoryPid: () => child.memoryPid(),
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
