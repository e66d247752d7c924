/**
 * Parent side of a tool host: runs one module with its permissions, as a Worker of the shared
 * tool host or in a `deno run` subprocess of its own, enforces call deadlines, restarts under the
 * restart policy on crash or ignored abort. The deadline, abort-grace and restart rules share
 * state, so they live together.
 * @module
 */

import { pathToFileURL } from "node:url";
import { dirname } from "node:path";
import type { PermissionSet } from "../../config/gateway_config.ts";
import type { LogMethods } from "../../logger.ts";
import { permissionFlags } from "../../config/permission_flags.ts";
import { watchMemory } from "../../process/memory_watch.ts";
import { RestartPolicy, type RestartPolicyOptions } from "../../process/restart_policy.ts";
import { ToolCallError } from "../namespace.ts";
import type { SharedToolHosts } from "./shared_tool_host.ts";
import type { ToolHostConnection } from "./tool_host_connection.ts";
import { ToolHostProcess } from "./tool_host_process.ts";
import { type Clock, systemClock, type TimerId } from "../../protocol/clock.ts";
import type { CallTicket } from "./module_calls.ts";
import { CallDeadlines } from "./call_deadlines.ts";
import { AbortFanout } from "./abort_fanout.ts";
import { messageOf } from "../../protocol/message_of.ts";
import { withSocketGrant } from "./socket_grant.ts";
import { WorkerLinks } from "./worker_links.ts";
import type { ConfinedCommand, OsSandbox } from "../../process/os_sandbox.ts";
import { toolHostView } from "./tool_host_view.ts";

/** Where the host is in its life; mapped onto the namespace status by `LocalNamespace`. */
export type ToolHostState =
  | { state: "stopped" }
  /** A process is importing the module; `lastFailure` is set when this is a restart. */
  | { state: "starting"; lastFailure?: string }
  | { state: "ready"; pid: number }
  /** The last attempt failed; another starts at `retryAt` (ms since the epoch). */
  | { state: "waiting"; reason: string; retryAt: number };

/** Settings of a {@linkcode ToolHost}. */
export interface ToolHostOptions {
  /** Namespace name, used in messages. */
  name: string;
  /** Absolute path of the module. */
  file: string;
  /**
   * The module as users see it, in messages.
   * @default {"tools/<file name>"}
   */
  label?: string;
  /** Deno permissions; undefined = `--allow-all` (the user wrote the module). */
  permissions?: PermissionSet | undefined;
  /** Handed to the module as JSON in `GATEWAY_TOOL_SETTINGS`. */
  settings?: Record<string, unknown>;
  /** Handed to the module in `GATEWAY_DATA_DIR`. */
  dataDir: string;
  /**
   * Working directory of the host (relative permission paths resolve against it).
   * @default {the parent of the module's directory, i.e. the root}
   */
  cwd?: string;
  /**
   * A `deno.json` whose import map the module may use; null runs with `--no-config`.
   * @default {null}
   */
  configPath?: string | null;
  /** @default {10000} */
  loadTimeoutMs?: number;
  /** How long a call may ignore its abort signal before the host is restarted. @default {2000} */
  abortGraceMs?: number;
  /** Between SIGTERM and SIGKILL when stopping. @default {2000} */
  killGraceMs?: number;
  /** First restart delay, doubled after each failure in a row. @default {500} */
  restartDelayMs?: number;
  /** @default {30000} */
  maxRestartDelayMs?: number;
  /** The breaker (and the rest of the back-off); the same policy as MCP upstreams'. */
  restart?: Partial<RestartPolicyOptions>;
  /** Resident memory of the host; past it the host is restarted. @default {1024} */
  maxMemoryMb?: number;
  /** Told the pid (= process group) of every host started, so a later server can reap it. */
  onSpawn?: (pid: number) => void;
  /**
   * Where the module runs as a Worker with its own permissions, sharing one process with the
   * other modules; absent (or `isolate`) = a `deno run` process of its own.
   */
  shared?: SharedToolHosts;
  /** Run in a process of its own even when `shared` is given (`tools.NAME.isolate`). */
  isolate?: boolean;
  /**
   * The operating-system layer a host process starts under (`exec.osSandbox`): a view of only
   * the module's grants (`tool_host_view.ts`), a PID namespace, death with the gateway.
   * @default {the shared hosts' (`SharedToolHosts.confinement`); without either, a plain spawn}
   */
  sandbox?: OsSandbox;
  /**
   * Directories the OS sandbox never shows the host (other processes' scratch space).
   * @default {the shared hosts'}
   */
  hiddenPaths?: readonly string[];
  /** @default {console} */
  logger?: LogMethods;
  /** Told about every state change. */
  onStateChange?: (state: ToolHostState) => void;
  /** Deadlines, the abort grace and restart delays. @default {systemClock} */
  clock?: Clock;
  /**
   * Runs the module: the default is a Worker of `shared` or a process of its own. Tests give a
   * module over an in-memory pair.
   */
  connect?: () => ToolHostConnection;
}

/** Per-call limits. */
export interface ToolHostCallOptions {
  /** Deadline of the call; past it the call fails with `ToolTimeout`. */
  timeoutMs: number;
  /** Cancels the call (`Cancelled`). */
  signal?: AbortSignal;
}

/**
 * Runs one tool module out of process. `start()` resolves once the module has been imported or
 * rejects with `ToolModuleLoadError`; after a failure or crash the host keeps retrying with
 * back-off (0.5 s doubling to 30 s) until `stop()`.
 *
 * @example
 * ```ts ignore
 * const host = new ToolHost({ name: "kv", file: "/root/tools/kv.ts", dataDir: "/data" });
 * await host.start();
 * const value = await host.call("get", { key: "a" }, { timeoutMs: 60_000 });
 * await host.stop();
 * ```
 */
export class ToolHost {
  #options: ToolHostOptions;
  #logger: LogMethods;
  #process: ToolHostConnection | undefined;
  /** Every process not yet closed, including ones being killed; `stop()` waits for all. */
  #alive = new Set<ToolHostConnection>();
  #state: ToolHostState = { state: "stopped" };
  #restart: RestartPolicy;
  #clock: Clock;
  #retryTimer: TimerId | undefined;
  #stateWaiters: Array<() => void> = [];
  #stopping = false;
  #started: Promise<void> | undefined;
  #deadlines: CallDeadlines;
  #aborts = new AbortFanout();

  constructor(options: ToolHostOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#deadlines = new CallDeadlines(this.#clock);
    this.#logger = options.logger ?? console;
    this.#restart = new RestartPolicy({
      ...options.restart,
      ...(options.restartDelayMs === undefined ? {} : { initialDelayMs: options.restartDelayMs }),
      ...(options.maxRestartDelayMs === undefined ? {} : { maxDelayMs: options.maxRestartDelayMs }),
    });
  }

  /** Current state. */
  state(): ToolHostState {
    return this.#state;
  }

  /** Process (and process group) id of the current host process, if one runs. */
  get pid(): number | undefined {
    return this.#process?.pid;
  }

  /**
   * The `deno` command line a host process is started with (logged at each spawn), with the
   * grant to connect to `socket` (the gateway's socket for its calls) when given.
   */
  command(socket?: string): string[] {
    const options = this.#options;
    const flags = ["run", "--no-prompt"];
    if (options.configPath === undefined || options.configPath === null) flags.push("--no-config");
    else flags.push("--config", options.configPath, "--no-lock");
    flags.push(...hostPermissionFlags(options.permissions, options.file, { socket }));
    return [
      Deno.execPath(),
      ...flags,
      new URL("./tool_host_main.ts", import.meta.url).href,
      pathToFileURL(options.file).href,
    ];
  }

  /**
   * Starts the first host process. Resolves when the module is imported; rejects with
   * `ToolModuleLoadError` when that attempt fails (retries then continue in the background).
   * Calling it again returns the same promise.
   */
  start(): Promise<void> {
    this.#started ??= this.#launch(undefined);
    return this.#started;
  }

  /**
   * Calls `tool` with `args` (undefined = no argument). Resolves with the tool's return value;
   * rejects with `ToolCallError`: `ToolError` (the tool threw, or the host died during the
   * call), `ToolTimeout`, `Cancelled`, `NamespaceUnavailable` (host not running or restarted).
   */
  call(tool: string, args: unknown, options: ToolHostCallOptions): Promise<unknown> {
    const started = this.#clock.now();
    if (options.signal?.aborted) {
      return Promise.reject(
        new ToolCallError("Cancelled", `call to "${this.#options.name}.${tool}" was cancelled`),
      );
    }
    // A ready host is called in this turn, with no promise layer before the write.
    if (this.#state.state !== "starting") return this.#send(tool, args, options, started);
    return this.#waitWhileStarting(tool, options).then(() =>
      this.#send(tool, args, options, started)
    );
  }

  /** Writes the call to the current process and waits for its answer, deadline or abort. */
  #send(
    tool: string,
    args: unknown,
    options: ToolHostCallOptions,
    started: number,
  ): Promise<unknown> {
    const name = this.#options.name;
    const process = this.#process;
    if (this.#state.state !== "ready" || process === undefined) {
      return Promise.reject(
        new ToolCallError("NamespaceUnavailable", this.#unavailableMessage()),
      );
    }
    return new Promise<unknown>((resolve, reject) => {
      let done = false;
      /** Told when the answer comes after the call gave up (see #watchAbortGrace). */
      let late: (() => void) | undefined;
      const finish = (settle: () => void) => {
        if (done) return;
        done = true;
        removeDeadline();
        removeAbort();
        settle();
      };
      // The call is written first: what follows overlaps its round trip. Its answer never
      // comes in this turn, so the deadline and abort below are set up before it.
      const ticket = process.call(tool, args, {
        resolve: (value) => {
          if (done) return late?.();
          finish(() => resolve(value));
        },
        reject: (error) => {
          if (done) return late?.();
          finish(() => reject(error));
        },
      });
      const giveUp = (error: ToolCallError) =>
        finish(() => {
          ticket.cancel();
          late = this.#watchAbortGrace(process, ticket, tool);
          reject(error);
        });
      // One timer for every call's deadline (see CallDeadlines): calls end far more often
      // than they time out.
      const removeDeadline = this.#deadlines.add(started + options.timeoutMs, () =>
        giveUp(
          new ToolCallError(
            "ToolTimeout",
            `tool "${name}.${tool}" did not answer within ${options.timeoutMs} ms`,
          ),
        ));
      // One listener per signal for all its calls (see AbortFanout): a run's calls share one.
      const removeAbort = options.signal === undefined
        ? () => {}
        : this.#aborts.add(options.signal, () =>
          giveUp(new ToolCallError("Cancelled", `call to "${name}.${tool}" was cancelled`)));
    });
  }

  /**
   * Stops the host: no more restarts; waits up to `drainMs` for calls in flight (default 0),
   * then closes stdin, SIGTERMs the process group and SIGKILLs it after the kill grace.
   */
  async stop(options?: { drainMs?: number }): Promise<void> {
    this.#stopping = true;
    this.#clock.clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    const current = this.#process;
    if (current !== undefined && (options?.drainMs ?? 0) > 0) {
      await current.drained(options?.drainMs ?? 0);
    }
    const message = `tool host for "${this.#options.name}" was stopped`;
    const graceMs = this.#options.killGraceMs ?? 2_000;
    await Promise.all([...this.#alive].map((process) => process.stop(graceMs, message)));
    this.#process = undefined;
    this.#deadlines.clear();
    this.#setState({ state: "stopped" });
  }

  async #launch(lastFailure: string | undefined): Promise<void> {
    if (this.#stopping) return;
    const options = this.#options;
    let process: ToolHostConnection;
    try {
      process = options.connect?.() ??
        (options.shared !== undefined && !runsIsolated(options)
          ? this.#openShared(options.shared)
          : this.#spawn());
    } catch (error) {
      const reason = `Cannot start the tool host for "${options.name}": ${String(error)}`;
      this.#scheduleRetry(reason, "start");
      throw new Error(reason, { cause: error });
    }
    this.#process = process;
    this.#alive.add(process);
    if (process.isolated) {
      options.onSpawn?.(process.pid);
      const maxMemoryMb = options.maxMemoryMb ?? 1024;
      const memory = watchMemory(() => process.memoryPid(), maxMemoryMb, () => {
        memory.stop();
        const reason = `tool host for "${options.name}" used more than ${maxMemoryMb} MB of ` +
          `memory (tools.${options.name}.maxMemoryMb) and was restarted`;
        this.#logger.warn(reason);
        process.retire(reason);
        process.stop(0, reason).catch(() => {});
      }, { intervalMs: 250 });
      process.closed.then(() => memory.stop());
    }
    process.closed.then(() => this.#alive.delete(process));
    this.#setState(
      lastFailure === undefined ? { state: "starting" } : {
        state: "starting",
        lastFailure,
      },
    );
    process.closed.then(() => this.#onClosed(process));
    try {
      await process.ready;
    } catch (error) {
      if (this.#process === process && !this.#stopping) {
        this.#logger.warn(messageOf(error));
        this.#scheduleRetry(messageOf(error), "start");
      }
      throw error;
    }
    if (this.#process === process && !this.#stopping) {
      this.#restart.onReady();
      this.#setState({ state: "ready", pid: process.pid });
    }
  }

  /** The module as a Worker of the shared host, with its permissions. */
  #openShared(shared: SharedToolHosts): ToolHostConnection {
    const options = this.#options;
    this.#logger.info(`loading "${options.name}" into the shared tool host`);
    return shared.open({
      name: options.name,
      label: this.#label(),
      moduleUrl: pathToFileURL(options.file).href,
      cwd: options.cwd ?? dirname(dirname(options.file)),
      configPath: options.configPath ?? null,
      permissions: workerPermissions(options.permissions, options.file),
      grants: options.permissions,
      dataDir: options.dataDir,
      importAnywhere: options.permissions === undefined || options.permissions.net === true,
      env: {
        GATEWAY_DATA_DIR: options.dataDir,
        GATEWAY_TOOL_SETTINGS: JSON.stringify(options.settings ?? {}),
      },
      loadTimeoutMs: options.loadTimeoutMs ?? 10_000,
      logger: this.#logger,
    });
  }

  /** The module in a `deno run` process of its own. */
  #spawn(): ToolHostProcess {
    const options = this.#options;
    // Its calls travel on a socket of its own (a child's stdio streams cost every call
    // more); the grant to connect is revoked before the module is imported.
    const links = new WorkerLinks(this.#logger, options.shared?.socketDir);
    let command: string[];
    try {
      command = this.command(links.socketPath);
    } catch (error) {
      links.close();
      throw error;
    }
    const set = hostPermissionSet(options.permissions, options.file);
    const cwd = options.cwd ?? dirname(dirname(options.file));
    let confined: ConfinedCommand = { argv: command, namespaced: false };
    const shared = options.shared?.confinement;
    try {
      confined = (options.sandbox ?? shared?.sandbox)?.command(
        command,
        toolHostView({
          permissions: options.permissions,
          moduleDir: dirname(options.file),
          configPath: options.configPath ?? null,
          cwd,
          socketDir: dirname(links.socketPath),
          dataDir: options.dataDir,
          hidden: options.hiddenPaths ?? shared?.hiddenPaths ?? [],
        }),
      ) ?? confined;
    } catch (error) {
      links.close();
      throw error;
    }
    this.#logger.info(`starting tool host for "${options.name}": ${confined.argv.join(" ")}`);
    return new ToolHostProcess({
      links,
      revoke: set === undefined ? [] : withSocketGrant(set, links.socketPath).revoke,
      name: options.name,
      label: this.#label(),
      moduleUrl: pathToFileURL(options.file).href,
      command: confined.argv,
      namespaced: confined.namespaced,
      cwd,
      env: {
        GATEWAY_DATA_DIR: options.dataDir,
        GATEWAY_TOOL_SETTINGS: JSON.stringify(options.settings ?? {}),
        NO_COLOR: "1",
        DENO_NO_UPDATE_CHECK: "1",
      },
      loadTimeoutMs: options.loadTimeoutMs ?? 10_000,
      logger: this.#logger,
    });
  }

  #onClosed(process: ToolHostConnection): void {
    if (this.#process !== process || this.#stopping || this.#state.state !== "ready") return;
    // A crash after the module was ready: pending calls already failed with the exit status.
    const reason = `tool host for "${this.#options.name}" ${process.endReason}`;
    this.#logger.warn(reason);
    this.#scheduleRetry(reason, "crash");
  }

  /** Waits as the restart policy says (the breaker holds a crash loop down), then relaunches. */
  #scheduleRetry(failure: string, kind: "start" | "crash"): void {
    if (this.#stopping) return;
    const decision = this.#restart.onFailure(kind, this.#clock.now());
    const delay = decision.delayMs;
    const reason = decision.breakerOpen ? `${failure} (${this.#restart.breakerReason()})` : failure;
    this.#process = undefined;
    this.#setState({ state: "waiting", reason, retryAt: this.#clock.now() + delay });
    this.#retryTimer = this.#clock.setTimeout(() => {
      this.#retryTimer = undefined;
      this.#launch(reason).catch(() => {}); // a failed retry schedules the next one
    }, delay);
  }

  /**
   * Restarts the host (failing its other calls) when call `id`, given up on, still runs after
   * the abort grace. Returns
   * what to call when its answer comes after all (the grace ends then).
   */
  #watchAbortGrace(process: ToolHostConnection, call: CallTicket, tool: string): () => void {
    const graceMs = this.#options.abortGraceMs ?? 2_000;
    const timer = this.#clock.setTimeout(() => {
      if (!call.pending || this.#process !== process || this.#stopping) return;
      const reason = `tool host for "${this.#options.name}" restarted: call "${tool}" ignored ` +
        `its abort signal for ${graceMs} ms`;
      this.#logger.warn(reason);
      process.retire(reason);
      this.#process = undefined;
      this.#setState({ state: "starting", lastFailure: reason });
      process.stop(this.#options.killGraceMs ?? 2_000, reason)
        .then(() => this.#launch(reason))
        .catch(() => {});
    }, graceMs);
    return () => this.#clock.clearTimeout(timer);
  }

  async #waitWhileStarting(tool: string, options: ToolHostCallOptions): Promise<void> {
    const signal = options.signal;
    const clock = this.#clock;
    await new Promise<void>((resolve) => {
      const timer = clock.setTimeout(done, options.timeoutMs);
      signal?.addEventListener("abort", done, { once: true });
      this.#stateWaiters.push(done);
      function done() {
        clock.clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        resolve();
      }
    });
    if (signal?.aborted) {
      throw new ToolCallError("Cancelled", `call to "${this.#options.name}.${tool}" was cancelled`);
    }
  }

  #unavailableMessage(): string {
    const name = this.#options.name;
    const state = this.#state;
    switch (state.state) {
      case "waiting": {
        const seconds = Math.max(0, (state.retryAt - this.#clock.now()) / 1000).toFixed(1);
        return `tool host for "${name}" is not running: ${state.reason} (retrying in ${seconds} s)`;
      }
      case "starting":
        return `tool host for "${name}" is still starting`;
      case "stopped":
        return `tool host for "${name}" is stopped`;
      default:
        return `tool host for "${name}" is not running`;
    }
  }

  #label(): string {
    return this.#options.label ?? `tools/${this.#options.file.split(/[\\/]/).at(-1) ?? ""}`;
  }

  #setState(state: ToolHostState): void {
    this.#state = state;
    const waiters = this.#stateWaiters;
    this.#stateWaiters = [];
    for (const waiter of waiters) waiter();
    try {
      this.#options.onStateChange?.(state);
    } catch (error) {
      this.#logger.error(`tool host state listener failed: ${String(error)}`);
    }
  }
}

/**
 * Deno flags for a tool host. Undefined permissions mean `--allow-all`. Otherwise the configured
 * grants, plus what hosting needs: reading the module's own directory (dynamic import checks
 * read access for local files), the two `GATEWAY_*` variables, and imports from the hosts the
 * module may reach anyway (`net`).
 */
export function hostPermissionFlags(
  permissions: PermissionSet | undefined,
  file: string,
  options: {
    /** The gateway's socket for the host's calls: granted until the host has connected. */
    socket?: string | undefined;
  } = {},
): string[] {
  const set = hostPermissionSet(permissions, file);
  if (set === undefined) return ["--allow-all"];
  const { socket } = options;
  const flags = permissionFlags(
    socket === undefined ? set : withSocketGrant(set, socket).permissions,
  );
  if (set.net === true) flags.push("--allow-import");
  else if (Array.isArray(set.net) && set.net.length > 0) {
    flags.push(`--allow-import=${set.net.join(",")}`);
  }
  return flags;
}

/** The grants of a host process of its own (see {@linkcode hostPermissionFlags}); undefined = all. */
function hostPermissionSet(
  permissions: PermissionSet | undefined,
  file: string,
): PermissionSet | undefined {
  if (permissions === undefined) return undefined;
  const set: PermissionSet = { ...permissions };
  const moduleDir = dirname(file);
  if (set.read !== true) set.read = [...(Array.isArray(set.read) ? set.read : []), moduleDir];
  if (set.env !== true) {
    set.env = [
      ...(Array.isArray(set.env) ? set.env : []),
      "GATEWAY_DATA_DIR",
      "GATEWAY_TOOL_SETTINGS",
    ];
  }
  return set;
}

/**
 * The Worker permissions of a module in the shared host: the same grants as
 * {@linkcode hostPermissionFlags} gives a host process of its own. Undefined = all.
 */
export function workerPermissions(
  permissions: PermissionSet | undefined,
  file: string,
): Deno.PermissionOptions {
  if (permissions === undefined) return "inherit";
  const moduleDir = dirname(file);
  const grant = (value: boolean | string[] | undefined): boolean | string[] =>
    value === true ? true : Array.isArray(value) && value.length > 0 ? value : false;
  const read = permissions.read === true
    ? true
    : [...(Array.isArray(permissions.read) ? permissions.read : []), moduleDir];
  const env = permissions.env === true ? true : [
    ...(Array.isArray(permissions.env) ? permissions.env : []),
    "GATEWAY_DATA_DIR",
    "GATEWAY_TOOL_SETTINGS",
  ];
  return {
    net: grant(permissions.net),
    read,
    write: grant(permissions.write),
    env,
    run: grant(permissions.run),
    ffi: grant(permissions.ffi),
    sys: grant(permissions.sys),
  };
}

/**
 * Whether a module needs a process of its own although a shared host is offered: asked for
 * (`tools.NAME.isolate`, implied by `maxMemoryMb`), or its `net` grant is a list of hosts — a
 * process gets `--allow-import=` those hosts, while a Worker's imports follow its host process.
 */
export function runsIsolated(
  options: Pick<ToolHostOptions, "isolate" | "permissions">,
): boolean {
  const net = options.permissions?.net;
  return options.isolate === true || (Array.isArray(net) && net.length > 0);
}
