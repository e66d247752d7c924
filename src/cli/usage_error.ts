/**
 * A mistake in how the CLI was called (unknown command or flag, missing argument): printed
 * with the command's usage and exit code 2.
 * @module
 */

/** Thrown by commands for bad invocations; the entry point prints it and exits 2. */
export class UsageError extends Error {
  /** The usage text of the command that was misused, printed after the message. */
  readonly usage: string;
  constructor(message: string, usage = "") {
    super(message);
    this.name = "UsageError";
    this.usage = usage;
  }
}
