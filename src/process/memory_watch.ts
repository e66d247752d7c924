/**
 * Watches a child process's resident memory from the gateway (runs and tool hosts), because the
 * V8 heap flag alone lets ArrayBuffers through (RELIABILITY SBX-08).
 * @module
 */

/** Polls a child's resident memory; the V8 heap flag alone misses ArrayBuffers (SBX-08). */
export function watchMemory(
  pid: number,
  limitMb: number,
  onExceeded: () => void,
  options: { intervalMs?: number } = {},
): { stop(): void } {
  if (Deno.build.os !== "linux") return { stop() {} };
  const limitKb = limitMb * 1024;
  const timer = setInterval(() => {
    let text: string;
    try {
      text = Deno.readTextFileSync(`/proc/${pid}/status`);
    } catch {
      return;
    }
    const match = /VmRSS:\s+(\d+) kB/.exec(text);
    if (match && Number(match[1]) > limitKb) onExceeded();
  }, options.intervalMs ?? 100);
  return { stop: () => clearInterval(timer) };
}
