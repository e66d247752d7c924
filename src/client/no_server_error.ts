/**
 * The error the CLI shows as `error[Server]` when no server answers for its data dir. A file of
 * its own so the CLI entry can test for it without loading the connection code.
 * @module
 */

/** No server runs and autostart is off, or the running one serves another root. */
export class NoServerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "NoServerError";
  }
}
