/**
 * Parent side of the shared tool host: one `deno run --unstable-worker-options` process per
 * (working directory, deno.json) in which every non-isolated tool module runs as a Worker with
 * its own permissions (a process per module would cost each module a Deno runtime's memory). A module that exits, hangs or
 * crashes ends only its Worker; if the process itself dies, each module's `ToolHost` restarts
 * it under the restart policy. Calls and results travel on each Worker's own
 * socket (each module's conversation in `module_calls.ts`), the lifecycle on the host thread's
 * own link (`worker_links.ts`); what the process writes on stdout and stderr is logged as
 * untrusted text. The process and the per-module handle share one lifecycle stream, so they
 * live in one module.
 * @module
 */

import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import type { LogMethods } from "../../logger.ts";
import type { PermissionSet } from "../../config/gateway_config.ts";
import type { ConfinedCommand, OsSandbox } from "../../process/os_sandbox.ts";
import { toolHostView } from "./tool_host_view.ts";
import { describeExit } from "../../process/describe_exit.ts";
import { watchMemory } from "../../process/memory_watch.ts";
import { SupervisedChild } from "../../process/supervised_child.ts";
import { DeferredTransport } from "../../protocol/deferred_transport.ts";
import { MessagePeer } from "../../protocol/message_peer.ts";
import type { Transport } from "../../protocol/transport.ts";
import { ToolCallError } from "../namespace.ts";
import type { LoadRequest, UnloadRequest } from "./shared_host_modules.ts";
import type { ToolHostConnection } from "./tool_host_connection.ts";
import { describeLoadError, isWireError } from "./tool_host_process.ts";
import { HostOutputLog } from "./host_output_log.ts";
import { ToolModuleLoadError } from "./tool_module_load_error.ts";
import { type CallTicket, ModuleCalls, type PendingCall } from "./module_calls.ts";
import { type LinkedModule, type WorkerLink, WorkerLinks } from "./worker_links.ts";

/** Settings of {@linkcode SharedToolHosts}. */
export interface SharedToolHostsOptions {
  /** Told the pid (= process group) of every shared host started (the process ledger). */
  onSpawn?: (pid: number) => void;
  /** Where the hosts' own stderr goes. */
  logger: LogMethods;
  /**
   * Resident memory of one shared host; past it the host is restarted with all its modules
   * (a module with its own `maxMemoryMb` runs isolated instead). @default {1024}
   */
  maxMemoryMb?: number;
  /** Between SIGTERM and SIGKILL when a host is stopped. @default {2000} */
  killGraceMs?: number;
  /**
   * A private directory (0700, short path) for each host's socket directory (`tools-PID-…`),
   * where a later server finds what a dead one left. @default {the system temp dir}
   */
  socketDir?: string;
  /**
   * The operating-system layer the hosts start under (`exec.osSandbox`); modules whose views
   * differ (`tool_host_view.ts`) then share no process.
   */
  sandbox?: OsSandbox;
  /** Directories the OS sandbox never shows a host (other processes' scratch space). */
  hiddenPaths?: readonly string[];
}

/** How to load one module into a shared host. */
export interface SharedModuleOptions {
  /** Namespace name, in messages. */
  name: string;
  /** The module as users see it, e.g. `tools/kv.ts`. */
  label: string;
  moduleUrl: string;
  /** Working directory of the host (relative permission paths resolve against it). */
  cwd: string;
  /** A `deno.json` whose import map modules may use; null runs with `--no-config`. */
  configPath: string | null;
  /** The Worker's permissions. */
  permissions: Deno.PermissionOptions;
  /** The module's configured grants (undefined = all): what the OS sandbox shows its host. */
  grants: PermissionSet | undefined;
  /** The data dir handed to the module (`GATEWAY_DATA_DIR`). */
  dataDir: string;
  /**
   * Whether the module may import from any host (it may use the network): such modules share
   * a host started with `--allow-import`; the others one limited to Deno's default import
   * hosts, as their own process would be (a Worker's imports follow its process's grants).
   */
  importAnywhere: boolean;
  /** The module's own `GATEWAY_*` variables. */
  env: Record<string, string>;
  loadTimeoutMs: number;
  logger: LogMethods;
}

/**
 * The shared tool host processes of one server, started on the first module that needs one.
 * `stop()` ends them all (the server's shutdown).
 */
export class SharedToolHosts {
  #options: SharedToolHostsOptions;
  #hosts = new Map<string, SharedHostProcess>();
  #nextWorker = 1;
  #stopped = false;

  constructor(options: SharedToolHostsOptions) {
    this.#options = options;
  }

  /** Loads a module into the shared host for its cwd and config (started if none runs). */
  open(options: SharedModuleOptions): ToolHostConnection {
    if (this.#stopped) throw new Error("Cannot load a tool module: the shared tool hosts stopped");
    // Under the OS sandbox a host's view is its first module's grants: only modules with the
    // same grants (and directory) may share it.
    const view = this.#options.sandbox?.active
      ? `\0${JSON.stringify(options.grants ?? "all")}\0${dirname(options.moduleUrl)}`
      : "";
    const key = `${options.cwd}\0${options.configPath ?? ""}\0${options.importAnywhere}${view}`;
    let host = this.#hosts.get(key);
    if (host === undefined || host.exited) {
      const started = new SharedHostProcess(options, this.#options);
      host = started;
      this.#hosts.set(key, started);
      started.closed.then(() => {
        if (this.#hosts.get(key) === started) this.#hosts.delete(key);
      });
    }
    return host.load(this.#nextWorker++, options);
  }

  /** Where the hosts' socket directories go; isolated hosts put theirs there too. */
  get socketDir(): string | undefined {
    return this.#options.socketDir;
  }

  /** The OS sandbox the hosts start under, and what it hides; isolated hosts use them too. */
  get confinement(): { sandbox?: OsSandbox; hiddenPaths?: readonly string[] } {
    const { sandbox, hiddenPaths } = this.#options;
    return { ...(sandbox ? { sandbox } : {}), ...(hiddenPaths ? { hiddenPaths } : {}) };
  }

  /** The sockets the running hosts' Workers take their calls on (diagnostics and tests). */
  socketPaths(): string[] {
    return [...this.#hosts.values()].filter((host) => !host.exited).map((host) =>
      host.links.socketPath
    );
  }

  /** Ends every shared host (their modules' calls fail); idempotent. */
  async stop(): Promise<void> {
    this.#stopped = true;
    const hosts = [...this.#hosts.values()];
    this.#hosts.clear();
    await Promise.all(hosts.map((host) => host.stop()));
  }
}

/** One shared host process and the Workers it runs. */
class SharedHostProcess {
  readonly pid: number;
  readonly closed: Promise<Deno.CommandStatus>;
  #child: SupervisedChild;
  /** The host thread's lifecycle conversation; what is sent waits until it presents its token. */
  #control: MessagePeer;
  #controlWire = new DeferredTransport();
  #modules = new Map<number, SharedModule>();
  #options: SharedToolHostsOptions;
  /** The Workers' direct connections: calls and results bypass the host's thread. */
  readonly links: WorkerLinks;

  constructor(module: SharedModuleOptions, options: SharedToolHostsOptions) {
    this.#options = options;
    this.links = new WorkerLinks(options.logger, options.socketDir);
    const configPath = module.configPath;
    const config = configPath === null ? ["--no-config"] : ["--config", configPath, "--no-lock"];
    // The host may do anything a module may; each Worker gets only its own grants, except
    // imports, which follow the process: without `--allow-import`, Deno's default hosts only.
    const grants = module.importAnywhere
      ? ["--allow-all"]
      : ["read", "write", "net", "env", "run", "ffi", "sys"].map((name) => `--allow-${name}`);
    const command = [
      Deno.execPath(),
      "run",
      "--no-prompt",
      "--unstable-worker-options",
      ...config,
      ...grants,
      new URL("./shared_tool_host_main.ts", import.meta.url).href,
    ];
    let confined: ConfinedCommand = { argv: command, namespaced: false };
    try {
      confined = options.sandbox?.command(
        command,
        toolHostView({
          permissions: module.grants,
          moduleDir: dirname(fileURLToPath(module.moduleUrl)),
          configPath,
          cwd: module.cwd,
          socketDir: dirname(this.links.socketPath),
          dataDir: module.dataDir,
          hidden: options.hiddenPaths ?? [],
        }),
      ) ?? confined;
    } catch (error) {
      this.links.close();
      throw error;
    }
    options.logger.info(`starting the shared tool host: ${confined.argv.join(" ")}`);
    // Every module in the process can write to its stdout and stderr: logged, never read as
    // messages.
    const stdout = new HostOutputLog("shared tool host stdout", options.logger);
    const stderr = new HostOutputLog("shared tool host", options.logger);
    this.#child = new SupervisedChild({
      argv: confined.argv,
      confine: () => confined,
      cwd: module.cwd,
      env: { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
      stdin: "piped",
      stdout: { onLine: (line) => stdout.line(line) },
      stderr: { onLine: (line) => stderr.line(line) },
    });
    this.pid = this.#child.pid;
    options.onSpawn?.(this.pid);
    this.#control = new MessagePeer(this.#controlWire, {
      onDropped: (why) => options.logger.warn(`the shared tool host sent ${why}: dropped`),
    });
    this.#control.onNotification((method, params) => this.#onNotice(method, params));
    // The host's thread joins the socket with this token, read from stdin before any module
    // runs; stdin is closed after it, and the lifecycle travels on that link only.
    const hostToken = crypto.randomUUID() + crypto.randomUUID();
    this.links.expectHost({
      token: hostToken,
      joined: (transport) => this.#controlWire.attach(transport),
    });
    const link = { socket: this.links.socketPath, token: hostToken };
    this.#child.writeStdin(
      new TextEncoder().encode(`${JSON.stringify({ method: "link", params: link })}\n`),
      true,
    );
    const maxMemoryMb = options.maxMemoryMb ?? 1024;
    const memory = watchMemory(() => this.#child.memoryPid(), maxMemoryMb, () => {
      memory.stop();
      options.logger.warn(
        `the shared tool host used more than ${maxMemoryMb} MB of memory and was restarted ` +
          "with its modules (give a module its own maxMemoryMb to run it isolated)",
      );
      this.#child.signal("SIGKILL");
    }, { intervalMs: 250 });
    this.closed = this.#child.closed.then(async (status) => {
      memory.stop();
      // The lifecycle the host sent before it died is read first (a module's import error).
      await this.links.drained(2_000);
      for (const module of [...this.#modules.values()]) {
        module.hostEnded(`the shared tool host ${describeExit(status)}`);
      }
      this.#modules.clear();
      this.links.close();
      return status;
    });
  }

  get exited(): boolean {
    return this.#child.exited;
  }

  /** The pid whose memory is the host's (inside bwrap: found under the namespace's reaper), or null when gone. */
  memoryPid(): number | null {
    return this.#child.memoryPid();
  }

  load(worker: number, options: SharedModuleOptions): ToolHostConnection {
    const module = new SharedModule(worker, this, options);
    this.#modules.set(worker, module);
    this.links.expect(module);
    const load: LoadRequest = {
      worker,
      moduleUrl: options.moduleUrl,
      permissions: options.permissions,
      env: options.env,
      socket: this.links.socketPath,
      token: module.token,
    };
    this.send("load", load);
    return module;
  }

  /** Forgets a module whose Worker is gone. */
  forget(worker: number): void {
    const module = this.#modules.get(worker);
    if (module !== undefined) this.links.forget(module);
    this.#modules.delete(worker);
  }

  send(method: "load", params: LoadRequest): void;
  send(method: "unload", params: UnloadRequest): void;
  send(method: string, params: unknown): void {
    if (this.#child.exited) return; // the exit fails the module's calls
    this.#control.notify(method, params);
  }

  async stop(): Promise<void> {
    if (!this.#child.exited) {
      // Its link closing ends the host (it terminates its Workers and exits).
      this.#control.close("the gateway stops the host");
      await this.#child.terminate({
        exitWaitMs: 500,
        graceMs: this.#options.killGraceMs ?? 2_000,
      });
    }
    await this.closed;
  }

  /** A lifecycle message from the host's thread, on its link. */
  #onNotice(method: string, params: unknown): void {
    const message = (params ?? {}) as Record<string, unknown>;
    const module = typeof message.worker === "number"
      ? this.#modules.get(message.worker)
      : undefined;
    module?.notice(method, message);
  }
}

/** One module in a Worker of a shared host: the {@linkcode ToolHostConnection} of `ToolHost`. */
class SharedModule implements ToolHostConnection, LinkedModule {
  readonly isolated = false;
  /** Presented by the module's Worker on the host's socket (see `WorkerLinks`). */
  readonly token = crypto.randomUUID() + crypto.randomUUID();
  readonly ready: Promise<string[]>;
  readonly closed: Promise<void>;
  #worker: number;
  #host: SharedHostProcess;
  #options: SharedModuleOptions;
  #calls: ModuleCalls;
  /** The link of the module's current Worker; undefined until it joins, or while it moves. */
  #link: WorkerLink | undefined;
  /** Whether calls were unanswered when the module was retired (see `unload`'s `busy`). */
  #busy = false;
  #ended: string | undefined;
  #settleReady: { resolve(exports: string[]): void; reject(error: Error): void } | undefined;
  /**
   * The exports of an import that finished before the Worker's `join` reached us: the `ready`
   * notice (the host's link) can overtake the join (the Worker's link). The module is ready once
   * both arrived, so that a Worker ended for another module's sake also detaches this one.
   */
  #exportsBeforeJoin: string[] | undefined;
  #settleClosed!: () => void;

  constructor(worker: number, host: SharedHostProcess, options: SharedModuleOptions) {
    this.#worker = worker;
    this.#host = host;
    this.#options = options;
    this.#calls = new ModuleCalls({ name: options.name });
    this.ready = new Promise<string[]>((resolve, reject) => {
      this.#settleReady = { resolve, reject };
    });
    this.ready.catch(() => {}); // observed by the owner
    this.closed = new Promise<void>((resolve) => {
      this.#settleClosed = resolve;
    });
    const loadTimer = setTimeout(() => {
      this.#failLoad(`import did not finish within ${options.loadTimeoutMs} ms`, undefined);
      this.#end("was stopped: its import did not finish");
    }, options.loadTimeoutMs);
    this.ready.then(() => clearTimeout(loadTimer), () => clearTimeout(loadTimer));
  }

  get pid(): number {
    return this.#host.pid;
  }

  /** The shared process's (not watched per module: see `SharedToolHostsOptions.maxMemoryMb`). */
  memoryPid(): number | null {
    return this.#host.memoryPid();
  }

  get worker(): number {
    return this.#worker;
  }

  get endReason(): string {
    return this.#ended ?? "is running";
  }

  call(tool: string, args: unknown, answer: PendingCall): CallTicket {
    return this.#calls.call(tool, args, answer);
  }

  /** The module's Worker joined (on its first import, and after each move to a new Worker). */
  joined(link: WorkerLink, channel: Transport, placement: number): boolean {
    if (this.#ended !== undefined || !this.#calls.join(channel, placement)) return false;
    this.#link = link;
    if (this.#exportsBeforeJoin !== undefined) this.#announceReady(this.#exportsBeforeJoin);
    this.#exportsBeforeJoin = undefined;
    return true;
  }

  #announceReady(exports: string[]): void {
    this.#settleReady?.resolve(exports);
    this.#settleReady = undefined;
  }

  /** The module's Worker is being ended: later calls wait for the next Worker to join. */
  detach(): void {
    this.#calls.detach();
    this.#link = undefined;
  }

  retire(message: string): void {
    // Retiring with calls unanswered means one ignored its abort: its code may hold the Worker.
    this.#busy ||= this.#calls.size > 0;
    this.#calls.retire(message);
  }

  drained(maxMs: number): Promise<void> {
    return this.#calls.drained(maxMs, () => this.#ended !== undefined);
  }

  /** Terminates the Worker (immediately: `terminate()` ends even a busy loop). */
  stop(_graceMs: number, message: string): Promise<void> {
    this.retire(message);
    this.#failLoad("the tool host was stopped while importing", undefined);
    this.#end("was stopped");
    return this.closed;
  }

  /** A lifecycle message about the module, from the host's thread on its link. */
  notice(method: string, message: Record<string, unknown>): void {
    switch (method) {
      case "ready": {
        const exports = Array.isArray(message.exports)
          ? message.exports.filter((e): e is string => typeof e === "string")
          : [];
        if (this.#link === undefined) this.#exportsBeforeJoin = exports;
        else this.#announceReady(exports);
        break;
      }
      case "load_error": {
        if (!isWireError(message.error)) break;
        const { reason, line } = describeLoadError(message.error, this.#options.moduleUrl);
        this.#failLoad(reason, line);
        this.#end("failed to import");
        break;
      }
      case "log":
        this.#options.logger.info(`[${this.#options.label}] ${String(message.line)}`);
        break;
      case "restarted": {
        // The Worker of placement `placement` went away: the calls sent to it that have no
        // answer never will; later calls wait for the next Worker to join.
        const left = typeof message.placement === "number" ? message.placement : 0;
        this.#calls.restarted(left, new ToolCallError("ToolError", String(message.message)));
        if (!this.#calls.joined) this.#link = undefined;
        break;
      }
      case "exit":
        this.#gone(String(message.reason));
        break;
    }
  }

  /** The whole shared host died. */
  hostEnded(reason: string): void {
    this.#gone(reason);
  }

  /** Asks the host to terminate the Worker, and treats it as gone. */
  #end(reason: string): void {
    if (this.#ended !== undefined) return;
    const busy = this.#busy || this.#calls.size > 0;
    this.#host.send("unload", { worker: this.#worker, ...(busy ? { busy: true } : {}) });
    // A busy unload ends the Worker: the modules sharing it move to a new one, so their next
    // calls wait for it rather than reach the old one (the host's `restarted` fails the rest).
    if (busy) {
      for (const other of this.#link?.modules.values() ?? []) {
        if (other !== this && other instanceof SharedModule) other.detach();
      }
    }
    this.#gone(reason);
  }

  /** The Worker is gone: pending calls and a pending import fail, `closed` settles. */
  #gone(reason: string): void {
    if (this.#ended !== undefined) return;
    this.#ended = reason;
    this.#host.forget(this.#worker);
    this.#link = undefined;
    this.#failLoad(`the tool module ${reason} during import`, undefined);
    this.#calls.end(
      new ToolCallError(
        "ToolError",
        `tool host for "${this.#options.name}" ${reason} during the call`,
      ),
    );
    this.#settleClosed();
  }

  #failLoad(reason: string, line: number | undefined): void {
    if (this.#settleReady === undefined) return;
    this.#settleReady.reject(
      new ToolModuleLoadError(
        this.#options.label,
        reason,
        line === undefined ? undefined : { line },
      ),
    );
    this.#settleReady = undefined;
  }
}
