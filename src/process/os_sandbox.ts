/**
 * The second sandbox layer under Deno's permissions (`exec.osSandbox`), and the parent-death
 * guard without it. Runners and tool hosts start through {@linkcode OsSandbox.command}: on Linux
 * inside bubblewrap (a mount namespace holding only their view, a PID namespace, no network
 * namespace change unless the view has no network, `--die-with-parent`); on macOS under
 * `sandbox-exec` with a generated profile; where neither is available (or the setting is
 * "off"), on Linux through `setpriv --pdeathsig KILL`, so a busy process still dies with the
 * gateway.
 *
 * Why bubblewrap directly rather than `@anthropic-ai/sandbox-runtime` (Claude Code's sandbox,
 * which drives the same bwrap and sandbox-exec): that library wraps a shell command line in
 * `bash -c`, starts socat bridges and HTTP/SOCKS proxies for its network filter, blocks every
 * new unix socket with a seccomp filter by default (our runners reach the gateway over one),
 * reads as "everything but a deny list", and keeps process-wide state in a singleton. Deno's
 * permissions already filter hosts; what the gateway needs from the OS is an allow-list view
 * built from grants it has normalised, one exec per process, and no helper processes: an argv
 * we build ourselves.
 * @module
 */

import { bwrapArgs } from "./bwrap_args.ts";
import { procStatFields } from "./proc_stat.ts";
import { sandboxExecProfile } from "./sandbox_exec_profile.ts";
import type { SandboxView } from "./sandbox_view.ts";

/** `exec.osSandbox`: on where available ("auto"), never without it ("required"), or "off". */
export type OsSandboxSetting = "auto" | "required" | "off";

/** The operating-system tools found on this machine. */
export interface OsSandboxTools {
  /** `bwrap` or `sandbox-exec` that works here, or null with why not. */
  sandbox: { kind: "bwrap" | "sandbox-exec"; path: string } | { kind: null; why: string };
  /** `setpriv` accepting `--pdeathsig` (Linux, util-linux), or null. */
  setpriv: string | null;
}

/** Thrown when `exec.osSandbox` is "required" and this machine has no sandbox to offer. */
export class OsSandboxUnavailable extends Error {
  constructor(why: string) {
    super(
      `exec.osSandbox is "required" but no operating-system sandbox works here: ${why}. ` +
        (Deno.build.os === "linux"
          ? "Install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: " +
            "dnf install bubblewrap; Arch: pacman -S bubblewrap) where user namespaces are " +
            "allowed, "
          : Deno.build.os === "darwin"
          ? "sandbox-exec ships with macOS at /usr/bin/sandbox-exec; "
          : "there is none on this system; ") +
        'or set "exec": { "osSandbox": "auto" } (or "off") in gateway.json',
    );
    this.name = "OsSandboxUnavailable";
  }
}

/** How long a probe of a tool may take before it counts as not working. */
const PROBE_TIMEOUT_MS = 5_000;

function findProgram(name: string, dirs: readonly string[]): string | null {
  const path = Deno.env.get("PATH") ?? "";
  for (const dir of [...path.split(":").filter((d) => d.startsWith("/")), ...dirs]) {
    try {
      if (Deno.statSync(`${dir}/${name}`).isFile) return `${dir}/${name}`;
    } catch {
      // not here
    }
  }
  return null;
}

/** Runs `argv` and answers null when it exits 0, else what went wrong. */
async function probe(argv: string[]): Promise<string | null> {
  const [program, ...args] = argv;
  try {
    const child = new Deno.Command(program!, {
      args,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
      clearEnv: true,
      env: { PATH: "/usr/bin:/bin" },
    }).spawn();
    const timer = setTimeout(() => {
      try {
        child.kill("SIGKILL");
      } catch {
        // exited
      }
    }, PROBE_TIMEOUT_MS);
    const output = await child.output();
    clearTimeout(timer);
    if (output.success) return null;
    const said = new TextDecoder().decode(output.stderr).trim().split("\n").at(-1) ?? "";
    return said === "" ? `it exited with code ${output.code}` : said;
  } catch (error) {
    return String(error);
  }
}

let found: Promise<OsSandboxTools> | undefined;
/** What {@linkcode findOsSandboxTools} found, once it has. */
let foundTools: OsSandboxTools | undefined;

/**
 * Finds and tries the sandbox tools once per process: bwrap must start a process in the
 * namespaces runners get (so a container that forbids them shows here, not at the first run),
 * and setpriv must accept `--pdeathsig`.
 */
export function findOsSandboxTools(): Promise<OsSandboxTools> {
  return found ??= probeTools().then((tools) => foundTools = tools);
}

/**
 * What {@linkcode findOsSandboxTools} found; throws when it has not finished (a server awaits
 * it while it opens its state, before anything starts a process).
 */
export function foundOsSandboxTools(): OsSandboxTools {
  if (foundTools === undefined) {
    throw new Error("The operating-system sandbox tools were not looked for yet");
  }
  return foundTools;
}

function probeTools(): Promise<OsSandboxTools> {
  return (async (): Promise<OsSandboxTools> => {
    if (Deno.build.os === "darwin") {
      const path = "/usr/bin/sandbox-exec";
      const why = await probe([path, "-p", "(version 1)(allow default)", "/usr/bin/true"]);
      return {
        sandbox: why === null ? { kind: "sandbox-exec", path } : { kind: null, why },
        setpriv: null,
      };
    }
    if (Deno.build.os !== "linux") {
      return { sandbox: { kind: null, why: `${Deno.build.os} has none` }, setpriv: null };
    }
    const sbin = ["/usr/bin", "/bin", "/usr/sbin", "/sbin"];
    const truePath = findProgram("true", sbin) ?? "/bin/true";
    const bwrap = findProgram("bwrap", sbin);
    const setprivPath = findProgram("setpriv", sbin);
    const [bwrapWhy, setprivWhy] = await Promise.all([
      bwrap === null ? Promise.resolve("bubblewrap (bwrap) is not installed") : probe([
        bwrap,
        "--ro-bind",
        "/",
        "/",
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--die-with-parent",
        "--unshare-pid",
        "--unshare-net",
        truePath,
      ]).then((why) => why === null ? null : `bwrap cannot make namespaces here (${why})`),
      setprivPath === null
        ? Promise.resolve("no setpriv")
        : probe([setprivPath, "--pdeathsig", "KILL", truePath]),
    ]);
    return {
      sandbox: bwrapWhy === null ? { kind: "bwrap", path: bwrap! } : { kind: null, why: bwrapWhy },
      setpriv: setprivWhy === null ? setprivPath : null,
    };
  })();
}

/** How a process is started: its argv, and whether it runs inside the OS sandbox. */
export interface ConfinedCommand {
  argv: string[];
  /**
   * True when the process runs in bubblewrap's PID namespace: `argv[0]` is bwrap, which
   * stays as the program's parent and exits with its status (a signal's as 128 + its number);
   * ending bwrap ends everything inside.
   */
  namespaced: boolean;
}

/** Starts processes under the OS sandbox as `exec.osSandbox` says (see the module doc). */
export class OsSandbox {
  readonly #tools: OsSandboxTools;
  readonly #setting: () => OsSandboxSetting;
  readonly #log: (message: string) => void;
  #noticed = false;

  constructor(
    tools: OsSandboxTools,
    options: { setting: () => OsSandboxSetting; log?: (message: string) => void },
  ) {
    this.#tools = tools;
    this.#setting = options.setting;
    this.#log = options.log ?? (() => {});
  }

  /**
   * Finds the tools and checks the setting against them: "required" without a sandbox throws
   * {@linkcode OsSandboxUnavailable}; "auto" without one logs a one-line notice.
   */
  static async start(
    options: { setting: () => OsSandboxSetting; log?: (message: string) => void },
  ): Promise<OsSandbox> {
    const sandbox = new OsSandbox(await findOsSandboxTools(), options);
    sandbox.check();
    return sandbox;
  }

  /** Whether processes start inside the OS sandbox now (the setting, and a tool found). */
  get active(): boolean {
    return this.#setting() !== "off" && this.#tools.sandbox.kind !== null;
  }

  /** The sandbox tool in use, or null. */
  get kind(): "bwrap" | "sandbox-exec" | null {
    return this.active ? this.#tools.sandbox.kind : null;
  }

  /**
   * Throws {@linkcode OsSandboxUnavailable} when the setting is "required" and there is no
   * sandbox; logs the notice once when it is "auto" and there is none.
   */
  check(): void {
    const sandbox = this.#tools.sandbox;
    if (sandbox.kind !== null) return;
    const setting = this.#setting();
    if (setting === "required") throw new OsSandboxUnavailable(sandbox.why);
    if (setting === "auto" && !this.#noticed) {
      this.#noticed = true;
      this.#log(
        `exec.osSandbox: no operating-system sandbox here (${sandbox.why}); runs and tool ` +
          'modules have Deno\'s permissions alone (set "required" to refuse to run without it)',
      );
    }
  }

  /**
   * The argv that starts `command` seeing `view`: inside the sandbox when it is active;
   * otherwise through setpriv's parent-death signal where there is one, so the process dies
   * with the gateway even while busy. Throws {@linkcode OsSandboxUnavailable} when the
   * setting is "required" and there is no sandbox.
   */
  command(command: readonly string[], view: SandboxView): ConfinedCommand {
    this.check();
    const sandbox = this.#tools.sandbox;
    if (this.#setting() !== "off" && sandbox.kind === "bwrap") {
      return { argv: [sandbox.path, ...bwrapArgs(view), "--", ...command], namespaced: true };
    }
    if (this.#setting() !== "off" && sandbox.kind === "sandbox-exec") {
      return {
        argv: [sandbox.path, "-p", sandboxExecProfile(view), ...command],
        namespaced: false,
      };
    }
    const setpriv = this.#tools.setpriv;
    return {
      argv: setpriv === null ? [...command] : [setpriv, "--pdeathsig", "KILL", ...command],
      namespaced: false,
    };
  }
}

/** Signal names by number (Linux), for a bwrap whose program died of a signal. */
const SIGNALS: Readonly<Record<number, Deno.Signal>> = {
  1: "SIGHUP",
  2: "SIGINT",
  3: "SIGQUIT",
  4: "SIGILL",
  5: "SIGTRAP",
  6: "SIGABRT",
  7: "SIGBUS",
  8: "SIGFPE",
  9: "SIGKILL",
  11: "SIGSEGV",
  13: "SIGPIPE",
  14: "SIGALRM",
  15: "SIGTERM",
};

/**
 * The status of a program bwrap ran, as if it had been started directly: bwrap exits with
 * 128 + N when its program died of signal N, and that signal is what callers classify by.
 */
export function unwrapNamespacedStatus(status: Deno.CommandStatus): Deno.CommandStatus {
  if (status.signal !== null || status.code <= 128) return status;
  const signal = SIGNALS[status.code - 128];
  return signal === undefined ? status : { success: false, code: status.code, signal };
}

/**
 * The pid of the program inside a bwrap started by the gateway, as this process sees it: the
 * child of the reaper that is the first process of the namespace (the only child of the bwrap
 * started). Null before it is started or after it is gone. Its memory is the run's; bwrap's own
 * is not.
 */
export function namespacedChildPid(bwrapPid: number): number | null {
  const reaper = onlyChild(bwrapPid);
  return reaper === null ? null : onlyChild(reaper);
}

/**
 * Ends a bwrap and its PID namespace from outside. bwrap's first child (the namespace's reaper)
 * waits for its parent's go-ahead before it asks to die with its parent, so a bwrap ended in
 * that window (a runner cancelled or drained while it starts) would leave the reaper waiting
 * for ever. bwrap is stopped first, so it starts no child meanwhile; the reaper is killed, which
 * ends everything in the namespace; then bwrap. Linux only (`/proc`); elsewhere bwrap alone.
 */
export function killNamespaced(bwrapPid: number): void {
  try {
    Deno.kill(bwrapPid, "SIGSTOP");
  } catch {
    return; // gone already
  }
  // The signal is only sent: bwrap stops when it next leaves the kernel, possibly on its way
  // back from the clone that makes the reaper. Its children are read once it has stopped.
  waitStopped(bwrapPid);
  const reaper = onlyChild(bwrapPid);
  for (const pid of reaper === null ? [bwrapPid] : [reaper, bwrapPid]) {
    try {
      Deno.kill(pid, "SIGKILL");
    } catch {
      // exited meanwhile
    }
  }
}

/** How long {@linkcode killNamespaced} waits for a stopped bwrap to stop at most. */
const STOP_WAIT_MS = 200;

/**
 * Waits, blocking, until `pid` is stopped (or gone, or the wait is over): a few microseconds
 * usually; a loaded machine may take a scheduling turn to deliver the stop.
 */
function waitStopped(pid: number): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const until = performance.now() + STOP_WAIT_MS;
  for (;;) {
    const state = procStatFields(pid)?.[0];
    if (state === undefined || state === "T" || state === "t" || state === "Z") return;
    if (performance.now() > until) return;
    Atomics.wait(pause, 0, 0, 0.1);
  }
}

function onlyChild(pid: number): number | null {
  try {
    const children = Deno.readTextFileSync(`/proc/${pid}/task/${pid}/children`).trim();
    const first = Number(children.split(" ")[0]);
    return Number.isInteger(first) && first > 0 ? first : null;
  } catch {
    return null;
  }
}
