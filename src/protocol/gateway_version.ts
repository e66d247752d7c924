/**
 * The gateway's version, shared by the CLI (`--version`), the server (`/health`, `server.json`)
 * and the MCP server info, in a module small enough for the CLI to load instantly.
 * @module
 */

/** The gateway's version. */
export const GATEWAY_VERSION = "0.1.0";
