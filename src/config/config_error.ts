/**
 * The error for a configuration file that cannot be used, in its own small module so the CLI
 * can recognise it without loading the config parser.
 * @module
 */

/** A configuration file that cannot be used; the message says where and what to do. */
export class ConfigError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ConfigError";
  }
}
