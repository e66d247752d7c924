/**
 * Resident memory of a process and every descendant, read from `/proc` (issue 12: the
 * gateway's memory is the server plus everything it spawned, not the upstream MCP server's own
 * process). Linux only; elsewhere it reports nothing.
 * @module
 */

/** The tree's resident memory and what was counted or left out. */
export interface TreeMemory {
  /** Sum of VmRSS over the counted processes, in MB. */
  mb: number;
  /** Counted processes: pid, a short command line, MB. */
  processes: { pid: number; command: string; mb: number }[];
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

function rssMb(pid: number): number {
  const status = readProc(`/proc/${pid}/status`);
  const match = status ? /VmRSS:\s+(\d+) kB/.exec(status) : null;
  return match ? Number(match[1]) / 1024 : 0;
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
  const result: TreeMemory = { mb: 0, processes: [], excludedMb: 0 };
  if (Deno.build.os !== "linux") return result;
  const children = parents();
  const walk = (at: number, excluded: boolean) => {
    const command = commandOf(at);
    const out = excluded || (options.exclude?.(command) ?? false);
    const mb = rssMb(at);
    if (out) result.excludedMb += mb;
    else {
      result.mb += mb;
      result.processes.push({ pid: at, command: command.slice(0, 120), mb });
    }
    for (const child of children.get(at) ?? []) walk(child, out);
  };
  walk(pid, false);
  return result;
}

/** One line per counted process, biggest first: `  123 MB  deno run … runner_main.ts`. */
export function describeTree(memory: TreeMemory): string {
  return [...memory.processes].sort((a, b) => b.mb - a.mb).map((p) =>
    `      ${p.mb.toFixed(0).padStart(5)} MB  ${
      p.command.replace(/^\S*deno /, "deno ").slice(-100)
    }`
  ).join("\n");
}
