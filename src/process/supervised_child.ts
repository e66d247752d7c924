/**
 * The one way the gateway starts a child process and watches it (runners, tool hosts, the
 * shared tool host, child workers): under the operating-system sandbox when asked, as the
 * leader of a process group of its own, its output read as lines, logged or kept as a tail to
 * explain an exit, its status read as the program's own (inside bubblewrap too), and its end
 * (TERM, grace, KILL of the whole group) in one place, so "no descendant survives a stop" holds
 * for every kind.
 * @module
 */

import { describeExit } from "./describe_exit.ts";
import {
  type ConfinedCommand,
  killNamespaced,
  namespacedChildPid,
  unwrapNamespacedStatus,
} from "./os_sandbox.ts";
import { procStatFields } from "./proc_stat.ts";
import {
  settlesWithin,
  signalProcessGroup,
  terminateProcess,
  terminateProcessGroup,
} from "./terminate_process_group.ts";
import { LineFramer } from "../protocol/line_framer.ts";

/** What becomes of one output stream of the child. */
export type OutputMode =
  /** Read by the owner (`SupervisedChild.stdout`/`stderr`). */
  | "piped"
  /** Read here, line by line, to `onLine`; the last lines and characters are kept. */
  | { onLine: (line: string) => void }
  /** Read here and kept only as a tail. */
  | "tail"
  | "null";

/** How to start a child. */
export interface SupervisedChildOptions {
  /** The program and its arguments (`[Deno.execPath(), "run", …]`). */
  argv: readonly string[];
  cwd?: string;
  /** Added to the inherited environment, or the whole of it with `clearEnv`. */
  env?: Record<string, string>;
  /** Start from an empty environment. @default {false} */
  clearEnv?: boolean;
  /**
   * Wraps the argv in the operating-system sandbox (`OsSandbox.command` with the child's view).
   * A namespaced child's status is read as its program's, and its memory is the program's.
   */
  confine?: (argv: readonly string[]) => ConfinedCommand;
  /**
   * Whether the child leads a process group of its own (so ending it ends everything it
   * started): through `setsid(1)` where it exists (a plain spawn then exec: a `detached` spawn
   * makes Deno fork the whole server first), else a detached spawn. @default {true}
   */
  ownGroup?: boolean;
  /** @default {"piped"} */
  stdin?: "piped" | "null";
  /** @default {"piped"} */
  stdout?: OutputMode;
  /** @default {"tail"} */
  stderr?: OutputMode;
  /** Longest line handed to an `onLine`; longer ones are dropped. @default {65536} */
  maxLineLength?: number;
}

/** Characters of stderr kept to explain an exit. */
const TAIL_CHARS = 2_000;

let setsidPath: string | null | undefined;

/** `setsid(1)` where it exists (util-linux), else null; looked up once. */
function findSetsid(): string | null {
  if (setsidPath !== undefined) return setsidPath;
  setsidPath = null;
  if (Deno.build.os !== "linux") return null;
  for (const path of ["/usr/bin/setsid", "/bin/setsid"]) {
    try {
      if (Deno.statSync(path).isFile) return setsidPath = path;
    } catch {
      // not here
    }
  }
  return null;
}

/**
 * Whether `pid` leads its own process group yet: a child started through `setsid(1)` does from
 * the moment setsid has run in it, a moment after the spawn (Linux: /proc).
 */
export function leadsGroup(pid: number): boolean {
  const fields = procStatFields(pid);
  // Gone, or no /proc: nothing to tell, the group signal is all there is.
  return fields === null || Number(fields[2]) === pid;
}

/** A started child; see the module doc. One instance never outlives its process. */
export class SupervisedChild {
  /** The process started (setsid execs in place: the same pid), also its process group. */
  readonly pid: number;
  /** How the child ended, as if its program had been started directly. */
  readonly status: Promise<Deno.CommandStatus>;
  /**
   * Settles once the child has exited, what is left of its group is killed, and the streams
   * read here are drained. Never rejects.
   */
  readonly closed: Promise<Deno.CommandStatus>;
  /** Whether the child runs in bubblewrap's PID namespace. */
  readonly namespaced: boolean;
  readonly #child: Deno.ChildProcess;
  readonly #ownGroup: boolean;
  readonly #viaSetsid: boolean;
  #leader = false;
  #status: Deno.CommandStatus | undefined;
  #innerPid: number | null = null;
  #tail = "";
  #lines: string[] = [];
  #stdinWriter: WritableStreamDefaultWriter<Uint8Array> | undefined;

  constructor(options: SupervisedChildOptions) {
    const confined = options.confine?.(options.argv) ??
      { argv: [...options.argv], namespaced: false };
    this.namespaced = confined.namespaced;
    this.#ownGroup = options.ownGroup ?? true;
    const setsid = this.#ownGroup ? findSetsid() : null;
    this.#viaSetsid = setsid !== null;
    const argv = setsid === null ? confined.argv : [setsid, ...confined.argv];
    const stdout = options.stdout ?? "piped";
    const stderr = options.stderr ?? "tail";
    this.#child = new Deno.Command(argv[0]!, {
      args: argv.slice(1),
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      ...(options.clearEnv === true ? { clearEnv: true } : {}),
      ...(options.env === undefined ? {} : { env: options.env }),
      stdin: options.stdin ?? "piped",
      stdout: stdout === "null" ? "null" : "piped",
      stderr: stderr === "null" ? "null" : "piped",
      detached: this.#ownGroup && setsid === null,
    }).spawn();
    this.pid = this.#child.pid;
    const status = this.#child.status;
    this.status = confined.namespaced ? status.then(unwrapNamespacedStatus) : status;
    const drained = [
      this.#readHere(stdout, () => this.#child.stdout, options),
      this.#readHere(stderr, () => this.#child.stderr, options),
    ];
    this.closed = this.status.then(async (exit) => {
      this.#status = exit;
      // The leader is gone: anything left in its group is an orphan.
      if (this.#ownGroup) signalProcessGroup(this.pid, "SIGKILL");
      await Promise.all(drained);
      return exit;
    });
  }

  /** The child's stdin (`stdin: "piped"`). */
  get stdin(): WritableStream<Uint8Array> {
    return this.#child.stdin;
  }

  /** The child's stdout (`stdout: "piped"`). */
  get stdout(): ReadableStream<Uint8Array> {
    return this.#child.stdout;
  }

  /** The child's stderr (`stderr: "piped"`). */
  get stderr(): ReadableStream<Uint8Array> {
    return this.#child.stderr;
  }

  /** How the child ended, once it has. */
  get exitStatus(): Deno.CommandStatus | undefined {
    return this.#status;
  }

  /** True once the child has exited. */
  get exited(): boolean {
    return this.#status !== undefined;
  }

  /** The last characters of the streams read here as a tail (stderr, by default). */
  get tail(): string {
    return this.#tail;
  }

  /** The last lines handed to an `onLine` (at most 20), newest last. */
  get lastLines(): readonly string[] {
    return this.#lines;
  }

  /**
   * How the child ended, for failure messages (`exited with code 3`), with the last of what it
   * wrote when `withTail`; "is running" before it has.
   */
  endReason(withTail = false): string {
    if (this.#status === undefined) return "is running";
    const tail = withTail ? this.#tail.trim() : "";
    return `${describeExit(this.#status)}${tail === "" ? "" : `: ${tail}`}`;
  }

  /** The pid whose memory is the child's program's (inside bwrap: under its reaper), or null when gone. */
  memoryPid(): number | null {
    if (this.#status !== undefined) return null;
    if (!this.namespaced) return this.pid;
    return this.#innerPid ??= namespacedChildPid(this.pid);
  }

  /**
   * The owner knows the child leads its group now (it has run code of its own, so setsid(1)
   * has exec'd): an end need not check.
   */
  groupLed(): void {
    this.#leader = true;
  }

  /** Writes `bytes` to stdin (`stdin: "piped"`); `close` ends stdin after them. */
  async writeStdin(bytes: Uint8Array, close = false): Promise<void> {
    this.#stdinWriter ??= this.#child.stdin.getWriter();
    const writer = this.#stdinWriter;
    try {
      await (close ? Promise.all([writer.write(bytes), writer.close()]) : writer.write(bytes));
    } catch {
      // the child is gone already: its exit says why
    }
  }

  /** Closes stdin (the child's end of input: many children exit on it). */
  async closeStdin(): Promise<void> {
    this.#stdinWriter ??= this.#child.stdin.getWriter();
    await this.#stdinWriter.close().catch(() => {});
  }

  /** Sends `signal` to the child (its whole group, when it leads one). */
  signal(signal: Deno.Signal): void {
    if (this.#ownGroup) {
      this.#killAloneIfNotLeader(signal);
      signalProcessGroup(this.pid, signal);
      return;
    }
    try {
      if (this.#status === undefined) this.#child.kill(signal);
    } catch {
      // it exited between the check and the signal
    }
  }

  /**
   * Ends the child: waits up to `exitWaitMs` for it to exit by itself, then TERM, then KILL
   * after `graceMs` — its whole group when it leads one (even after its own exit, a child it
   * forked may live on there). Resolves with its status once it is reaped.
   */
  async terminate(options: { graceMs: number; exitWaitMs?: number }): Promise<Deno.CommandStatus> {
    if (!this.#ownGroup) {
      // A namespace's processes are ended from outside: signalling bwrap alone may miss them
      // (bwrap passes no signal on, so there was no grace to give them either).
      const exitWaitMs = options.exitWaitMs ?? 0;
      if (
        this.namespaced && this.#status === undefined &&
        !(exitWaitMs > 0 && await settlesWithin(this.#child.status, exitWaitMs))
      ) killNamespaced(this.pid);
      await terminateProcess(this.#child, () => this.#status !== undefined, options);
      return await this.status;
    }
    this.#killAloneIfNotLeader("SIGKILL");
    await terminateProcessGroup(this.pid, this.#child.status, options);
    return await this.status;
  }

  /**
   * Stopped before setsid(1) made it a group leader, it runs nothing of its own yet: it is
   * signalled alone (a group signal would miss it).
   */
  #killAloneIfNotLeader(signal: Deno.Signal): void {
    if (!this.#viaSetsid || this.#leader || this.#status !== undefined) return;
    if (leadsGroup(this.pid)) {
      this.#leader = true;
      return;
    }
    try {
      this.#child.kill(signal);
    } catch {
      // exited already
    }
  }

  /** Reads a stream kept here (lines or tail) to its end; resolves then. */
  async #readHere(
    mode: OutputMode,
    stream: () => ReadableStream<Uint8Array>,
    options: SupervisedChildOptions,
  ): Promise<void> {
    if (mode === "piped" || mode === "null") return;
    const onLine = mode === "tail" ? undefined : mode.onLine;
    const decoder = new TextDecoder();
    const framer = onLine === undefined ? undefined : new LineFramer((line) => {
      this.#lines.push(line);
      if (this.#lines.length > 20) this.#lines.shift();
      onLine(line);
    }, { maxLineLength: options.maxLineLength ?? 64 * 1024 });
    const reader = stream().getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        this.#tail = (this.#tail + decoder.decode(value, { stream: true })).slice(-TAIL_CHARS);
        framer?.push(value);
      }
      framer?.end();
    } catch {
      // a stream cut short ends like one read to its end
    }
  }
}
