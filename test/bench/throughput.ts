/**
 * Throughput at a fixed concurrency: N tasks, at most K in flight, counting the ones
 * that did not succeed ("lost"). Used for 1,000 trivial gateway runs against 1,000 bare
 * `deno run` processes at the same concurrency.
 * @module
 */

/** How a batch went. */
export interface Throughput {
  ok: number;
  lost: number;
  ms: number;
  perSecond: number;
  /** The first failure's message, for the report. */
  firstError: string | null;
}

/** Runs `total` tasks with at most `inFlight` at once; a task that throws or returns false is lost. */
export async function throughput(
  total: number,
  inFlight: number,
  task: (i: number) => Promise<boolean>,
): Promise<Throughput> {
  let next = 0;
  let ok = 0;
  let firstError: string | null = null;
  const start = performance.now();
  const worker = async () => {
    while (next < total) {
      const i = next++;
      try {
        if (await task(i)) ok++;
        else firstError ??= `task ${i} failed`;
      } catch (error) {
        firstError ??= error instanceof Error ? error.message : String(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, total) }, worker));
  const ms = performance.now() - start;
  return { ok, lost: total - ok, ms, perSecond: ok / (ms / 1000), firstError };
}

/** Segments of one measure taken apart, as one: runs and time summed, the first failure kept. */
export function sumThroughput(parts: readonly Throughput[]): Throughput {
  const ok = parts.reduce((sum, p) => sum + p.ok, 0);
  const ms = parts.reduce((sum, p) => sum + p.ms, 0);
  return {
    ok,
    lost: parts.reduce((sum, p) => sum + p.lost, 0),
    ms,
    perSecond: ok / (ms / 1000),
    firstError: parts.find((p) => p.firstError !== null)?.firstError ?? null,
  };
}
