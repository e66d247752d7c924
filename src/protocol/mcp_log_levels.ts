/**
 * MCP's log levels (syslog's, least severe first): what a host may set with
 * `logging/setLevel` and what an upstream's log notifications carry, checked in the one list
 * the gateway's MCP server and its upstream methods share.
 * @module
 */

/** MCP log levels, least severe first. */
export const LOG_LEVELS = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
] as const;

/** One MCP log level. */
export type LogLevel = typeof LOG_LEVELS[number];

/** Whether `value` names an MCP log level. */
export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === "string" && (LOG_LEVELS as readonly string[]).includes(value);
}
