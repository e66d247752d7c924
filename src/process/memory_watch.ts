/**
 * Watches a child process's resident memory from the gateway (runs and tool hosts), because the
 * V8 heap flag alone lets ArrayBuffers through.
 * @module
 */

/**
 * Polls a child's resident memory; the V8 heap flag alone misses ArrayBuffers. `pid`
 * may be a function, read at each poll, for a process whose pid is learnt later (the program
 * inside a sandbox's PID namespace); null then skips the poll.
 */
export function watchMemory(
  pid: number | (() => number | null),
  limitMb: number,
  onExceeded: () => void,
  options: { intervalMs?: number } = {},
): { stop(): void } {
  if (Deno.build.os !== "linux") return { stop() {} };
  const limitKb = limitMb * 1024;
  const pidNow = typeof pid === "number" ? () => pid : pid;
  const timer = setInterval(() => {
    const now = pidNow();
    const kb = now === null ? null : residentKb(now);
    if (kb !== null && kb > limitKb) onExceeded();
  }, options.intervalMs ?? 100);
  return { stop: () => clearInterval(timer) };
}

/**
 * A process's resident memory in kB (VmRSS), or null when it is gone. Read from
 * `/proc/PID/statm` (a few numbers, in pages) rather than `status` (some fifty formatted
 * lines): a run is polled every 100 ms, and with 32 runs in flight that is most of what the
 * watch costs the server (CPU per run). Without the page size, from `status`.
 */
export function residentKb(pid: number): number | null {
  pageKb ??= pageSizeKb();
  try {
    if (pageKb !== null) {
      return Number(Deno.readTextFileSync(`/proc/${pid}/statm`).split(" ")[1]) * pageKb;
    }
    const match = /VmRSS:\s+(\d+) kB/.exec(Deno.readTextFileSync(`/proc/${pid}/status`));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

let pageKb: number | null | undefined;

/**
 * The kernel's page size in kB, from the auxiliary vector it handed this process (AT_PAGESZ,
 * type 6; pairs of native-endian 64-bit words on the 64-bit systems Deno runs on), or null
 * when it cannot be read.
 */
function pageSizeKb(): number | null {
  try {
    const bytes = Deno.readFileSync("/proc/self/auxv");
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const little = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
    for (let at = 0; at + 16 <= bytes.length; at += 16) {
      const type = view.getBigUint64(at, little);
      if (type === 0n) break;
      if (type === 6n) return Number(view.getBigUint64(at + 8, little)) / 1024;
    }
  } catch {
    // no /proc: the status file answers, or nothing does
  }
  return null;
}
