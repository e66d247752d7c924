/**
 * How the installed command's fast paths (`fast_exec.ts`, `fast_tools.ts`) reach a server that
 * is already running for the caller's root: the root and data dir resolved as the full CLI
 * does, `server.json` read, and the server's socket checked to be this user's before anything
 * is sent. Null whenever the full CLI must decide instead (no server, no socket, a root to
 * refuse): it starts one, asks the lock, or says why not.
 * @module
 */

import { resolveDataDir, resolveRoot } from "../config/gateway_paths.ts";
import { type ServerState, serverStatePath } from "../config/server_state.ts";
import { endpointOf, GatewayHttpClient } from "../client/gateway_http_client.ts";

/** The caller's invocation, as the fast paths read it. */
export interface FastConnectionInput {
  rootFlag: string | null;
  env: Record<string, string | undefined>;
  cwd: string;
}

/** A client of this root's running server, and the root it serves. */
export interface FastConnection {
  client: GatewayHttpClient;
  root: ReturnType<typeof resolveRoot>;
}

/** Opens a client of the root's running server; null when the full CLI must take over. */
export function fastConnection(input: FastConnectionInput): FastConnection | null {
  try {
    const root = resolveRoot({ flag: input.rootFlag ?? undefined, env: input.env, cwd: input.cwd });
    const dataDir = resolveDataDir({
      env: input.env,
      os: Deno.build.os,
      cwd: input.cwd,
      rootDir: root.dir,
    });
    const state = JSON.parse(Deno.readTextFileSync(serverStatePath(dataDir))) as ServerState;
    // No socket (Windows, or a server from before sockets): the full path, which asks the
    // server's lock before it sends the token to a port.
    if (state.root !== root.dir || typeof state.socket !== "string") return null;
    // The socket must be one this user's server made: another user's stand-in gets nothing.
    const client = new GatewayHttpClient(
      endpointOf({ socket: state.socket, port: state.port }, dataDir),
    );
    return { client, root };
  } catch {
    return null; // no usable server, or a root to refuse: the full path starts one or says why
  }
}
