/**
 * A logger that keeps every line as `LEVEL message`, so tests can assert on what was logged.
 * @module
 */

import type { LogMethods } from "../../src/logger.ts";

/** Keeps every logged line in `lines`, e.g. `warn tool host for "kv" exited with code 3`. */
export function captureLogger(): LogMethods & { lines: string[] } {
  const lines: string[] = [];
  const keep = (level: string) => (message: string) => lines.push(`${level} ${message}`);
  return {
    lines,
    debug: keep("debug"),
    info: keep("info"),
    warn: keep("warn"),
    error: keep("error"),
  };
}
