/**
 * The logging seam of MCP namespaces: upstream stderr, protocol noise and status changes go
 * here, never to clients.
 * @module
 */

/** Where an MCP namespace reports what it sees; `console` satisfies it. */
export interface McpLogger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** A logger that drops everything: the default, so tests and embedders stay quiet. */
export const SILENT_LOGGER: McpLogger = Object.freeze({
  debug() {},
  info() {},
  warn() {},
  error() {},
});
