/**
 * One tool host subprocess: starts `deno run tool_host_main.ts` (`SupervisedChild`: its own
 * process group), waits for the module to import, and kills the whole group. The import's
 * outcome, calls and results travel on the process's own socket (`worker_links.ts`, the
 * module's conversation in `module_calls.ts`), which it joins with a token sent on its stdin
 * before it imports the module; its stdout and stderr are the module's output, logged, never
 * read as messages. Restarts and deadlines live in `tool_host.ts`; one instance never outlives
 * its process.
 * @module
 */

import type { LogMethods } from "../../logger.ts";
import { describeExit } from "../../process/describe_exit.ts";
import { SupervisedChild } from "../../process/supervised_child.ts";
import type { WireError } from "../../protocol/message_peer.ts";
import type { Transport } from "../../protocol/transport.ts";
import { ToolCallError } from "../namespace.ts";
import type { ToolHostConnection } from "./tool_host_connection.ts";
import { ToolModuleLoadError } from "./tool_module_load_error.ts";
import { type CallTicket, ModuleCalls, type PendingCall } from "./module_calls.ts";
import { HostOutputLog, printable } from "./host_output_log.ts";
import type { LinkedModule, WorkerLink, WorkerLinks } from "./worker_links.ts";

/** How to start one tool host process. */
export interface ToolHostProcessOptions {
  /** The socket the process takes its calls on; closed when the process is gone. */
  links: WorkerLinks;
  /** The grants on the socket the process revokes once connected (none under `--allow-all`). */
  revoke: Deno.PermissionDescriptor[];
  /** Namespace name, used in messages (`tool host for "kv" …`). */
  name: string;
  /** The module as users see it, e.g. `tools/kv.ts`. */
  label: string;
  /** `file:` URL of the module, to find its lines in stack traces. */
  moduleUrl: string;
  /** Executable and its arguments, e.g. `[Deno.execPath(), "run", …]`. */
  command: string[];
  /**
   * Whether `command` starts bwrap around the host (`OsSandbox.command`): its status is then
   * read as the host's, and the host's memory is the program's inside it.
   */
  namespaced?: boolean;
  cwd: string;
  /** Added to the inherited environment. */
  env: Record<string, string>;
  /** Longest an import may take before the group is killed. */
  loadTimeoutMs: number;
  logger: LogMethods;
}

/**
 * A running tool host. `ready` settles once: with the module's function exports, or with a
 * {@linkcode ToolModuleLoadError} (import threw, hung past the timeout, or the process died).
 */
export class ToolHostProcess implements ToolHostConnection, LinkedModule {
  /** A process of its own: its memory can be watched. */
  readonly isolated = true;
  /** Its one module's id on its socket. */
  readonly worker = 0;
  /** Presented by the process on its socket; sent on its stdin, never in its command line. */
  readonly token = crypto.randomUUID() + crypto.randomUUID();
  /** Process id, also the process group id (the child leads a group of its own). */
  readonly pid: number;
  /** Function exports once imported; rejects with {@linkcode ToolModuleLoadError}. */
  readonly ready: Promise<string[]>;
  /** Settles when the process has exited and its pipes are drained; never rejects. */
  readonly closed: Promise<Deno.CommandStatus>;
  #options: ToolHostProcessOptions;
  #child: SupervisedChild;
  #calls: ModuleCalls;
  /** The process's connection, once it joined. */
  #link: WorkerLink | undefined;
  #loadError: WireError | undefined;
  /** The module's output: logged with its label, kept for a failed import's hint. */
  #stderr: HostOutputLog;
  #settleReady: { resolve(exports: string[]): void; reject(error: Error): void } | undefined;

  constructor(options: ToolHostProcessOptions) {
    this.#options = options;
    this.#calls = new ModuleCalls({
      name: options.name,
      onNotice: (method, params) => this.#notice(method, params),
    });
    this.#stderr = new HostOutputLog(options.label, options.logger);
    const stdout = new HostOutputLog(`${options.label} stdout`, options.logger);
    this.#child = new SupervisedChild({
      argv: options.command,
      confine: () => ({ argv: options.command, namespaced: options.namespaced === true }),
      cwd: options.cwd,
      env: options.env,
      stdin: "piped",
      stdout: { onLine: (line) => stdout.line(line) },
      stderr: { onLine: (line) => this.#stderr.line(line) },
    });
    this.pid = this.#child.pid;
    options.links.expect(this);
    // Its stdin brings the link, then stays open: its closing ends the host.
    const link = { socket: options.links.socketPath, token: this.token, revoke: options.revoke };
    this.#child.writeStdin(
      new TextEncoder().encode(`${JSON.stringify({ method: "link", params: link })}\n`),
    );
    this.ready = new Promise<string[]>((resolve, reject) => {
      this.#settleReady = { resolve, reject };
    });
    this.ready.catch(() => {}); // observed by the owner; avoid an unhandled rejection otherwise
    const loadTimer = setTimeout(() => {
      this.#failLoad(`import did not finish within ${options.loadTimeoutMs} ms`, undefined);
      this.#child.signal("SIGKILL");
    }, options.loadTimeoutMs);
    this.ready.then(() => clearTimeout(loadTimer), () => clearTimeout(loadTimer));
    this.closed = this.#child.closed.then(async (status) => {
      // What it sent on its link before it died is read first (its import error).
      await options.links.drained(2_000);
      options.links.close();
      this.#link = undefined;
      this.#onExit(status);
      return status;
    });
  }

  /** The pid whose memory is the host's (inside bwrap: found under the namespace's reaper), or null when gone. */
  memoryPid(): number | null {
    return this.#child.memoryPid();
  }

  /** How the process ended (`exited with code 3`), once it has. */
  get endReason(): string {
    return this.#child.endReason();
  }

  /** True once the process has exited. */
  get exited(): boolean {
    return this.#child.exited;
  }

  /** Number of calls waiting for an answer. */
  get pendingCount(): number {
    return this.#calls.size;
  }

  /**
   * Sends a call. `answer` gets the tool's value, or a {@linkcode ToolCallError}: the tool's
   * own, or why the process could not answer (it died, or was retired first).
   */
  call(tool: string, args: unknown, answer: PendingCall): CallTicket {
    return this.#calls.call(tool, args, answer);
  }

  /** The process joined its socket (once): calls made before go out now. */
  joined(link: WorkerLink, channel: Transport, placement: number): boolean {
    if (this.#link !== undefined || this.#child.exited) return false;
    if (!this.#calls.join(channel, placement)) return false;
    this.#link = link;
    // Its one connection is made: nothing else may connect, and its grant is revoked.
    this.#options.links.stopListening();
    return true;
  }

  /** What the process says about its module: the import's outcome. */
  #notice(method: string, params: unknown): void {
    const message = (params ?? {}) as { exports?: unknown; error?: unknown };
    if (method === "ready" && Array.isArray(message.exports)) {
      this.#settleReady?.resolve(message.exports.filter((e): e is string => typeof e === "string"));
      this.#settleReady = undefined;
    } else if (method === "load_error" && isWireError(message.error)) {
      this.#loadError = message.error;
      // Settled from the message, not from the exit that follows it (the host waits for
      // this link to close before it exits).
      const { reason, line } = describeLoadError(message.error, this.#options.moduleUrl);
      this.#failLoad(reason, line);
      this.#options.links.close();
    }
  }

  /**
   * Fails every pending and later call with `NamespaceUnavailable` and `message`; used before
   * the owner kills this process on purpose (restart, reload, stop).
   */
  retire(message: string): void {
    this.#calls.retire(message);
  }

  /** Resolves when no call is pending any more, or after `maxMs`. */
  drained(maxMs: number): Promise<void> {
    return this.#calls.drained(maxMs, () => this.#child.exited);
  }

  /**
   * Ends the process: closes stdin, SIGTERMs the group, SIGKILLs it after `graceMs`. Pending
   * calls fail with `message`. Resolves when the process is gone.
   */
  async stop(graceMs: number, message: string): Promise<void> {
    this.retire(message);
    this.#failLoad("the tool host was stopped while importing", undefined);
    if (!this.#child.exited) {
      await this.#child.closeStdin();
      await this.#child.terminate({ graceMs });
    }
    await this.closed;
  }

  #onExit(status: Deno.CommandStatus): void {
    if (this.#loadError !== undefined) {
      const { reason, line } = describeLoadError(this.#loadError, this.#options.moduleUrl);
      this.#failLoad(reason, line);
    } else {
      const hint = this.#stderr.tail.findLast((l) => /error/i.test(l));
      this.#failLoad(
        `the tool host ${describeExit(status)} during import` +
          (hint === undefined ? "" : `: ${printable(hint).trim()}`),
        undefined,
      );
    }
    this.#calls.end(
      new ToolCallError(
        "ToolError",
        `tool host for "${this.#options.name}" ${describeExit(status)} during the call`,
      ),
    );
  }

  #failLoad(reason: string, line: number | undefined): void {
    if (this.#settleReady === undefined) return;
    const error = new ToolModuleLoadError(
      this.#options.label,
      reason,
      line === undefined ? undefined : { line },
    );
    this.#settleReady.reject(error);
    this.#settleReady = undefined;
  }
}

/** Whether `value` has the shape of a {@linkcode WireError}. */
export function isWireError(value: unknown): value is WireError {
  return typeof value === "object" && value !== null && "message" in value &&
    typeof value.message === "string";
}

/** The first line of an import error and the module line it points at, if any (both host kinds). */
export function describeLoadError(
  error: WireError,
  moduleUrl: string,
): { reason: string; line: number | undefined } {
  const { name, stack } = (error.data ?? {}) as { name?: unknown; stack?: unknown };
  const firstLine = stripAnsi(error.message.split("\n")[0] ?? "").trim();
  const named = typeof name !== "string" || name === "Error" ||
      /^[A-Za-z]*Error:/.test(firstLine)
    ? firstLine
    : `${name}: ${firstLine}`;
  const escaped = moduleUrl.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const where = new RegExp(`${escaped}:(\\d+):\\d+`).exec(
    `${error.message}\n${typeof stack === "string" ? stack : ""}`,
  );
  const line = where?.[1] === undefined ? undefined : Number(where[1]);
  return { reason: `import failed: ${named}`, line };
}

function stripAnsi(text: string): string {
  // deno-lint-ignore no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, "");
}
