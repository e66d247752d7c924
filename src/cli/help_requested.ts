/**
 * `--help` on a command: `parseCommandArgs` throws this once the flags parse, and the command
 * table answers it for every verb (the usage on stdout, exit code 0).
 * @module
 */

/** Thrown by `parseCommandArgs` when `--help` is given; carries the command's usage text. */
export class HelpRequested extends Error {
  /** The usage text to print. */
  readonly usage: string;
  constructor(usage: string) {
    super("help requested");
    this.name = "HelpRequested";
    this.usage = usage;
  }
}
