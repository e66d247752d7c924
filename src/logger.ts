/**
 * Structured, quiet-by-default logging: one JSON object per line on stderr (or a file for the
 * service), at `warn` and above unless `GATEWAY_LOG` asks for more. Secrets are masked.
 * @module
 */

import { SecretMask } from "./config/secret_mask.ts";

/** Severity, lowest first. */
export type LogLevel = "debug" | "info" | "warn" | "error";

const ORDER: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/** What every component logs through; injected, never global. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** A logger whose lines carry `component`. */
  child(component: string): Logger;
}

/**
 * The four levels of a {@linkcode Logger} without `child`: what a component that never names
 * sub-components takes (tool hosts, MCP namespaces), so `console` and test loggers fit too.
 */
export type LogMethods = Omit<Logger, "child">;

/** A logger that drops everything: the default, so tests and embedders stay quiet. */
export const SILENT_LOGGER: LogMethods = Object.freeze({
  debug() {},
  info() {},
  warn() {},
  error() {},
});

/** Parses `GATEWAY_LOG`; unknown values fall back to `warn` with a warning on the first line. */
export function parseLogLevel(value: string | undefined): LogLevel {
  return value === "debug" || value === "info" || value === "warn" || value === "error"
    ? value
    : "warn";
}

/** Creates a logger writing JSON lines through `write`, masking every secret in `secrets()`. */
export function createLogger(options: {
  level: LogLevel;
  write?: (line: string) => void;
  secrets?: () => readonly string[];
  component?: string;
}): Logger {
  const write = options.write ?? ((line: string) => {
    try {
      Deno.stderr.writeSync(new TextEncoder().encode(line + "\n"));
    } catch {
      // stderr closed (detached server): nothing more to do with a log line
    }
  });
  const mask = new SecretMask(options.secrets ?? (() => []));
  const emit = (level: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (ORDER[level] < ORDER[options.level]) return;
    const line = JSON.stringify({
      time: new Date().toISOString(),
      level,
      ...(options.component ? { component: options.component } : {}),
      message,
      ...fields,
    });
    write(mask.mask(line));
  };
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
    child: (component) =>
      createLogger({
        ...options,
        component: options.component ? `${options.component}.${component}` : component,
      }),
  };
}
