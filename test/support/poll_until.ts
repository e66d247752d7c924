/**
 * Polling with a deadline: end-to-end tests wait for a state the gateway reaches on its own
 * (a reload, a failed namespace) without fixed sleeps.
 * @module
 */

/**
 * Calls `probe` every `intervalMs` until it returns a value other than `undefined`, and returns
 * that value; throws naming `what` and the last value seen when `timeoutMs` passes.
 */
export async function pollUntil<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  options: { timeoutMs?: number; intervalMs?: number; last?: () => unknown } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  let lastError: unknown = null;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
      lastError = null;
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100));
  }
  const seen = options.last ? `; last seen: ${JSON.stringify(options.last())}` : "";
  throw new Error(
    `Timed out after ${options.timeoutMs ?? 20_000} ms waiting for ${what}${seen}${
      lastError ? `; last error: ${String(lastError)}` : ""
    }`,
  );
}
