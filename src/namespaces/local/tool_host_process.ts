/**
 * One tool host subprocess: spawns `deno run tool_host_main.ts` in its own process group, waits
 * for the module to import, matches call results to callers, and kills the whole group. The
 * import's outcome, calls and results travel on the process's own socket (`worker_links.ts`),
 * which it joins with a token sent on its stdin before it imports the module; its stdout and
 * stderr are the module's output, logged, never read as messages. Restarts and deadlines live
 * in `tool_host.ts`; one instance never outlives its process.
 * @module
 */

import type { LogMethods } from "../../logger.ts";
import { describeExit } from "../../process/describe_exit.ts";
import {
  signalProcessGroup,
  terminateProcessGroup,
} from "../../process/terminate_process_group.ts";
import { ToolCallError } from "../namespace.ts";
import type { ToolHostConnection } from "./tool_host_connection.ts";
import { ToolModuleLoadError } from "./tool_module_load_error.ts";
import { type PendingCall, PendingCalls } from "./pending_calls.ts";
import {
  isWireError,
  readLines,
  type ResultMessage,
  type WireError,
} from "./tool_host_protocol.ts";
import { HostOutputLog, printable } from "./host_output_log.ts";
import { settlesWithin } from "../../process/terminate_process_group.ts";
import { namespacedChildPid, unwrapNamespacedStatus } from "../../process/os_sandbox.ts";
import { messageOf } from "../../protocol/message_of.ts";
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
  /** Process id, also the process group id (the child is started detached). */
  readonly pid: number;
  /** Function exports once imported; rejects with {@linkcode ToolModuleLoadError}. */
  readonly ready: Promise<string[]>;
  /** Settles when the process has exited and its pipes are drained; never rejects. */
  readonly closed: Promise<Deno.CommandStatus>;
  #options: ToolHostProcessOptions;
  #child: Deno.ChildProcess;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #pending = new PendingCalls();
  /** The process's connection, once it joined; calls made before wait in `#held`. */
  #link: WorkerLink | undefined;
  #held: string[] = [];
  #status: Deno.CommandStatus | undefined;
  #loadError: WireError | undefined;
  /** The host's pid inside bwrap, once found. */
  #innerPid: number | null = null;
  /** The module's output: logged with its label, kept for a failed import's hint. */
  #stderr: HostOutputLog;
  #settleReady: { resolve(exports: string[]): void; reject(error: Error): void } | undefined;

  constructor(options: ToolHostProcessOptions) {
    this.#options = options;
    const [executable, ...args] = options.command;
    this.#child = new Deno.Command(executable ?? Deno.execPath(), {
      args,
      cwd: options.cwd,
      env: options.env,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      detached: true,
    }).spawn();
    this.pid = this.#child.pid;
    this.#writer = this.#child.stdin.getWriter();
    options.links.expect(this);
    this.#write(
      `${
        JSON.stringify({
          type: "link",
          socket: options.links.socketPath,
          token: this.token,
          revoke: options.revoke,
        })
      }\n`,
    );
    this.ready = new Promise<string[]>((resolve, reject) => {
      this.#settleReady = { resolve, reject };
    });
    this.ready.catch(() => {}); // observed by the owner; avoid an unhandled rejection otherwise
    const loadTimer = setTimeout(() => {
      this.#failLoad(`import did not finish within ${options.loadTimeoutMs} ms`, undefined);
      signalProcessGroup(this.pid, "SIGKILL");
    }, options.loadTimeoutMs);
    this.ready.then(() => clearTimeout(loadTimer), () => clearTimeout(loadTimer));

    this.#stderr = new HostOutputLog(options.label, options.logger);
    const stdout = new HostOutputLog(`${options.label} stdout`, options.logger);
    const stdoutDone = readLines(this.#child.stdout, (line) => stdout.line(line), {
      maxLineLength: 64 * 1024,
    }).catch(() => {});
    const stderrDone = readLines(this.#child.stderr, (line) => this.#stderr.line(line), {
      maxLineLength: 64 * 1024,
    }).catch(() => {});
    const exit = options.namespaced
      ? this.#child.status.then(unwrapNamespacedStatus)
      : this.#child.status;
    this.closed = exit.then(async (status) => {
      this.#status = status;
      signalProcessGroup(this.pid, "SIGKILL"); // descendants the module left behind in its group
      // What it sent on its link before it died is read first (its import error).
      const link = this.#link;
      await Promise.all([
        stdoutDone,
        stderrDone,
        link === undefined ? undefined : settlesWithin(link.ended, 2_000),
      ]);
      options.links.close();
      this.#link = undefined;
      this.#held = [];
      this.#onExit(status);
      return status;
    });
  }

  /** The pid whose memory is the host's (inside bwrap: found under the namespace's reaper), or null when gone. */
  memoryPid(): number | null {
    if (this.#status !== undefined) return null;
    if (!this.#options.namespaced) return this.pid;
    return this.#innerPid ??= namespacedChildPid(this.pid);
  }

  /** How the process ended (`exited with code 3`), once it has. */
  get endReason(): string {
    return this.#status === undefined ? "is running" : describeExit(this.#status);
  }

  /** True once the process has exited. */
  get exited(): boolean {
    return this.#status !== undefined;
  }

  /** Number of calls waiting for an answer. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /** Whether call `id` still waits for its answer. */
  isPending(id: number): boolean {
    return this.#pending.has(id);
  }

  /**
   * Sends a call. Resolves with the child's answer (success or the tool's error); rejects with
   * {@linkcode ToolCallError} when the process dies or is retired first.
   */
  call(id: number, tool: string, args: unknown, answer: PendingCall): void {
    const gone = this.#pending.retiredWith ??
      (this.#status === undefined ? undefined : this.#exitError());
    if (gone !== undefined) return queueMicrotask(() => answer.reject(gone));
    let line: string;
    try {
      line = `${
        JSON.stringify(
          args === undefined ? { type: "call", id, tool } : { type: "call", id, tool, args },
        )
      }\n`;
    } catch (thrown) {
      const unsendable = new ToolCallError(
        "InvalidToolInput",
        `Cannot send arguments to "${this.#options.name}.${tool}": not JSON: ${messageOf(thrown)}`,
      );
      return queueMicrotask(() => answer.reject(unsendable));
    }
    this.#pending.add(id, answer);
    if (this.#link === undefined) this.#held.push(line);
    else this.#link.send(line);
  }

  /** Asks the child to abort call `id`'s signal; its answer, if any, is still delivered. */
  cancel(id: number): void {
    if (!this.#pending.has(id)) return;
    const line = `${JSON.stringify({ type: "cancel", id })}\n`;
    if (this.#link === undefined) this.#held.push(line);
    else this.#link.send(line);
  }

  /** The process joined its socket (once): calls made before go out now. */
  joined(link: WorkerLink, _placement: number): boolean {
    if (this.#link !== undefined || this.#status !== undefined) return false;
    this.#link = link;
    // Its one connection is made: nothing else may connect, and its grant is revoked.
    this.#options.links.stopListening();
    for (const line of this.#held) link.send(line);
    this.#held = [];
    return true;
  }

  /**
   * A message from the process, read from its socket: the import's outcome (`ready`,
   * `load_error`) or a call's result; late answers are dropped.
   */
  receive(message: Record<string, unknown>): void {
    if (
      message.type === "result" && typeof message.id === "number" &&
      (message.ok === true || (message.ok === false && isWireError(message.error)))
    ) {
      this.#pending.answer(message as unknown as ResultMessage);
    } else if (message.type === "ready" && Array.isArray(message.exports)) {
      this.#settleReady?.resolve(message.exports.filter((e): e is string => typeof e === "string"));
      this.#settleReady = undefined;
    } else if (message.type === "load_error" && isWireError(message.error)) {
      this.#loadError = message.error;
    }
  }

  /** Only a shared host's Workers are ended by the gateway while their process lives on. */
  detach(): void {}

  /** The socket closed: the process is going (its exit fails the calls). */
  unlinked(link: WorkerLink): void {
    if (this.#link === link) this.#link = undefined;
  }

  /**
   * Fails every pending and later call with `NamespaceUnavailable` and `message`; used before
   * the owner kills this process on purpose (restart, reload, stop).
   */
  retire(message: string): void {
    this.#pending.retire(message);
  }

  /** Resolves when no call is pending any more, or after `maxMs`. */
  drained(maxMs: number): Promise<void> {
    return this.#pending.drained(maxMs, () => this.#status !== undefined);
  }

  /**
   * Ends the process: closes stdin, SIGTERMs the group, SIGKILLs it after `graceMs`. Pending
   * calls fail with `message`. Resolves when the process is gone.
   */
  async stop(graceMs: number, message: string): Promise<void> {
    this.retire(message);
    this.#failLoad("the tool host was stopped while importing", undefined);
    if (this.#status === undefined) {
      await this.#writer.close().catch(() => {});
      await terminateProcessGroup(this.pid, this.#child.status, { graceMs });
    }
    await this.closed;
  }

  #write(line: string): void {
    this.#writer.write(new TextEncoder().encode(line)).catch(() => {
      // The process is gone; its exit fails the pending calls.
    });
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
    this.#pending.failAll(this.#exitError());
  }

  #exitError(): ToolCallError {
    const status = this.#status;
    const how = status === undefined ? "exited" : describeExit(status);
    return new ToolCallError(
      "ToolError",
      `tool host for "${this.#options.name}" ${how} during the call`,
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

/** The first line of an import error and the module line it points at, if any (both host kinds). */
export function describeLoadError(
  error: WireError,
  moduleUrl: string,
): { reason: string; line: number | undefined } {
  const firstLine = stripAnsi(error.message.split("\n")[0] ?? "").trim();
  const named = error.name === undefined || error.name === "Error" ||
      /^[A-Za-z]*Error:/.test(firstLine)
    ? firstLine
    : `${error.name}: ${firstLine}`;
  const escaped = moduleUrl.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const where = new RegExp(`${escaped}:(\\d+):\\d+`).exec(`${error.message}\n${error.stack ?? ""}`);
  const line = where?.[1] === undefined ? undefined : Number(where[1]);
  return { reason: `import failed: ${named}`, line };
}

function stripAnsi(text: string): string {
  // deno-lint-ignore no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, "");
}
