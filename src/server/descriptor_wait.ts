/**
 * Waits out a process-wide shortage of file descriptors. The listener is up (and `server.json`
 * published) before the server's parts open the history database; a local process that floods
 * the port in that window holds every descriptor the server has, and the database open fails —
 * through SQLite, as "unable to open database file", which names no cause. Probing for a
 * descriptor tells that shortage from a real fault, so only the shortage is waited out: the
 * supervised listener sheds the flood (supervised_serve.ts), descriptors come back, and the
 * start goes on instead of ending (a hostile local process never crashes the
 * server).
 * @module
 */

/** Fewer free descriptors than this counts as a shortage (SQLite alone needs three). */
const LOW_DESCRIPTORS = 16;

/**
 * Whether the process is out of file descriptors, or nearly: an open that failed for want of
 * several (SQLite's database, WAL and shared-memory files) gives back the ones it got, so one
 * free descriptor proves nothing. Linux counts `/proc/self/fd` against the soft limit; elsewhere
 * only a failing probe (EMFILE, or ENFILE for the whole system) tells.
 */
export function descriptorsExhausted(): boolean {
  let file: Deno.FsFile;
  try {
    file = Deno.openSync("/dev/null");
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return code === "EMFILE" || code === "ENFILE";
  }
  file.close();
  if (Deno.build.os !== "linux") return false;
  try {
    const limit = /^Max open files\s+(\d+)/m.exec(Deno.readTextFileSync("/proc/self/limits"));
    if (limit === null) return false;
    let open = 0;
    for (const _ of Deno.readDirSync("/proc/self/fd")) open++;
    return Number(limit[1]) - open < LOW_DESCRIPTORS;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return code === "EMFILE" || code === "ENFILE";
  }
}

/** Options of {@linkcode retryWhileDescriptorsExhausted}. */
export interface DescriptorWaitOptions {
  /** What is being opened, for the log line (e.g. "the history store"). */
  what: string;
  /** Told once per retry, with the error that failed the attempt and the wait before the next. */
  log: (message: string, fields: Record<string, unknown>) => void;
  /** Give up (rethrow the last error) after this long. @default {30_000} */
  maxWaitMs?: number;
  /** Whether descriptors are short; replaceable for unit tests of the loop. */
  exhausted?: () => boolean;
}

/**
 * Runs `open`; when it fails while the process is out of descriptors, waits (50 ms doubling to
 * 1 s) and runs it again, until it succeeds or `maxWaitMs` has passed. Any other failure is
 * thrown at once, unchanged. `open` must be safe to run again after a failure.
 */
export async function retryWhileDescriptorsExhausted<T>(
  open: () => T | Promise<T>,
  options: DescriptorWaitOptions,
): Promise<T> {
  const exhausted = options.exhausted ?? descriptorsExhausted;
  const giveUpAt = Date.now() + (options.maxWaitMs ?? 30_000);
  let waitMs = 50;
  for (;;) {
    try {
      return await open();
    } catch (error) {
      if (!exhausted() || Date.now() + waitMs > giveUpAt) throw error;
      options.log(`out of file descriptors while opening ${options.what}; trying again`, {
        error: error instanceof Error ? error.message : String(error),
        retryInMs: waitMs,
      });
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      waitMs = Math.min(waitMs * 2, 1000);
    }
  }
}
