/**
 * Resident memory of a process and every descendant, read from `/proc` (the
 * gateway's memory is the server plus everything it spawned, not the upstream MCP server's own
 * process). Linux only; elsewhere it reports nothing.
 *
 * Two figures: the sum of VmRSS (what `ps` shows, but the `deno` binary's text — about 23 MB,
 * file-backed and shared by every deno process — is counted once per process) and the tree's
 * unique memory: every process's private pages plus the shared pages counted once (the largest
 * shared figure among the tree's processes, an approximation: the binary's text is most of it).
 * The bench judges its memory targets on the unique figure.
 * @module
 */

/** One counted process. */
export interface ProcessMemory {
  pid: number;
  /** What the process is ({@linkcode roleOf}). */
  command: string;
  /** VmRSS, in MB. */
  mb: number;
  /** Private_Clean + Private_Dirty (pages only this process maps), in MB. */
  privateMb: number;
  /** Shared_Clean + Shared_Dirty (pages other processes map too), in MB. */
  sharedMb: number;
}

/** The tree's resident memory and what was counted or left out. */
export interface TreeMemory {
  /** Sum of VmRSS over the counted processes, in MB. */
  mb: number;
  /**
   * Unique memory of the counted processes, in MB: their private pages plus the largest
   * shared figure among them once (the binary's text is not counted once per process).
   */
  uniqueMb: number;
  /** Counted processes. */
  processes: ProcessMemory[];
  /** VmRSS of left-out processes (and their descendants), in MB. */
  excludedMb: number;
}

function readProc(path: string): string | null {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return null; // the process ended while we looked
  }
}

/** A `kB` field of a `/proc` file, in MB (0 when absent). */
function fieldMb(text: string | null, name: string): number {
  const match = text === null ? null : new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(text);
  return match ? Number(match[1]) / 1024 : 0;
}

/**
 * What a gateway process is, from its command line: the server, a runner, the shared tool host
 * or a child worker named by its entry (`script_checker_worker_entry.ts`, `signature_worker.ts`),
 * each also as `bwrap (…)` for the OS sandbox around it; the command line itself (its head) for
 * anything else.
 */
export function roleOf(command: string): string {
  // The OS sandbox's bwrap (and its reaper, a fork of it) around a gateway process.
  if (/^\S*\bbwrap /.test(command)) {
    const inside = command.indexOf(" -- ");
    return `bwrap (${inside < 0 ? "?" : roleOf(command.slice(inside + 4))})`;
  }
  const words = command.split(" ");
  const last = words.at(-1) ?? "";
  const name = (word: string) => word.slice(word.lastIndexOf("/") + 1);
  if (command.includes("child_worker_main.ts")) return `child worker ${name(last)}`;
  if (words.some((w) => w.includes("runner/runner_main."))) return "runner";
  if (words.some((w) => w.endsWith("shared_tool_host_main.ts"))) return "shared tool host";
  if (words.some((w) => w.endsWith("tool_host_main.ts"))) return "tool host (isolated)";
  if (words.some((w) => w.endsWith("main.ts")) && words.includes("server")) return "server";
  return command.replace(/^\S*deno /, "deno ").slice(0, 90);
}

function memoryOf(pid: number, command: string): ProcessMemory {
  const rollup = readProc(`/proc/${pid}/smaps_rollup`);
  return {
    pid,
    command: roleOf(command),
    mb: fieldMb(readProc(`/proc/${pid}/status`), "VmRSS"),
    privateMb: fieldMb(rollup, "Private_Clean") + fieldMb(rollup, "Private_Dirty"),
    sharedMb: fieldMb(rollup, "Shared_Clean") + fieldMb(rollup, "Shared_Dirty"),
  };
}

function commandOf(pid: number): string {
  return (readProc(`/proc/${pid}/cmdline`) ?? "").split("\0").filter((s) => s !== "").join(" ");
}

/** Parent pid of each live process. */
function parents(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    const stat = readProc(`/proc/${entry.name}/stat`);
    if (!stat) continue;
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    const list = children.get(ppid) ?? [];
    list.push(Number(entry.name));
    children.set(ppid, list);
  }
  return children;
}

/**
 * Memory of `pid` and its descendants; a process whose command line `exclude` accepts is left
 * out with its own descendants (an upstream MCP server the gateway spawned).
 */
export function processTreeMemory(
  pid: number,
  options: { exclude?: (command: string) => boolean } = {},
): TreeMemory {
  const result: TreeMemory = { mb: 0, uniqueMb: 0, processes: [], excludedMb: 0 };
  if (Deno.build.os !== "linux") return result;
  const children = parents();
  const walk = (at: number, excluded: boolean) => {
    const command = commandOf(at);
    // An empty command line is a process that ended while we looked (a zombie not yet reaped,
    // as a runner is for a moment after its run): it holds no memory and is not counted.
    if (command === "") return;
    const out = excluded || (options.exclude?.(command) ?? false);
    const memory = memoryOf(at, command);
    if (out) result.excludedMb += memory.mb;
    else {
      result.mb += memory.mb;
      result.processes.push(memory);
    }
    for (const child of children.get(at) ?? []) walk(child, out);
  };
  walk(pid, false);
  const privateMb = result.processes.reduce((sum, p) => sum + p.privateMb, 0);
  const sharedMb = Math.max(0, ...result.processes.map((p) => p.sharedMb));
  result.uniqueMb = privateMb + sharedMb;
  return result;
}

/**
 * One line per counted process, biggest first, with its VmRSS and its private part:
 * `  123 MB rss   98 MB private  server`.
 */
export function describeTree(memory: TreeMemory): string {
  return [...memory.processes].sort((a, b) => b.mb - a.mb).map((p) =>
    `      ${p.mb.toFixed(0).padStart(5)} MB rss ${
      p.privateMb.toFixed(0).padStart(5)
    } MB private  ${p.command}`
  ).join("\n");
}

/**
 * The figure a memory target is judged on (the unique memory) with the VmRSS sum beside it:
 * `212 MB unique (VmRSS sum 290 MB)`.
 */
export function describeTotal(memory: TreeMemory): string {
  return `${memory.uniqueMb.toFixed(0)} MB unique (VmRSS sum ${memory.mb.toFixed(0)} MB)`;
}
