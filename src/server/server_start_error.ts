/**
 * The error for a server that start-up could not bring up, in its own small module so the CLI
 * can recognise it without loading the server.
 * @module
 */

/** A server that start-up could not bring up; the message says why and what to do. */
export class ServerStartError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ServerStartError";
  }
}
