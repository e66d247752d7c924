/**
 * Finds the running server for a data dir and root, or starts one in the background and waits
 * until it answers, so one command does the main job on a fresh checkout. The server is
 * reached on its unix socket, checked to be this user's before anything is sent.
 * @module
 */

import { readServerState, type ServerState } from "../config/server_state.ts";
import { findServer, startBackgroundServer } from "./background_server.ts";
import { endpointOf, GatewayHttpClient } from "./gateway_http_client.ts";
import { NoServerError } from "./no_server_error.ts";

/** Where the CLI looks for (or starts) a server. */
export interface ConnectOptions {
  rootDir: string;
  /** Passed as `--root` when a server is started, so it serves the same root. */
  rootFlag: string | null;
  dataDir: string;
  autostart: boolean;
  /** Called with progress lines while a server starts (shown on a TTY). */
  progress?: (line: string) => void;
  /** How long to wait for a started server. @default 30000 */
  startTimeoutMs?: number;
}

/** A client of the server and what it is. */
export interface ServerConnection {
  client: GatewayHttpClient;
  state: ServerState;
  started: boolean;
}

export { NoServerError } from "./no_server_error.ts";
export { findServer } from "./background_server.ts";

/** A client of the server for this root, starting one first when allowed and needed. */
export async function connectToServer(options: ConnectOptions): Promise<ServerConnection> {
  // A server holding the data dir's lock for this root is used as it is: no health probe (the
  // CLI's start-up is part of every run's latency); its socket is checked to be ours.
  const recorded = await readServerState(options.dataDir);
  if (recorded && !recorded.stale && recorded.state.root === options.rootDir) {
    try {
      const client = new GatewayHttpClient(endpointOf(recorded.state, options.dataDir));
      return { client, state: recorded.state, started: false };
    } catch (error) {
      // A server that has just taken the lock has not yet rewritten the `server.json` of the
      // one before it (its socket or token not there yet): wait for it as for a start.
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  const { state, started } = await ensureServer(options);
  return { client: new GatewayHttpClient(endpointOf(state, options.dataDir)), state, started };
}

/**
 * The server of this data dir and root once it answers `/health` (with its parts up when this
 * call started it), starting one when allowed and needed — no client: `gateway start` needs no
 * more.
 */
export async function ensureServer(
  options: ConnectOptions,
): Promise<Omit<ServerConnection, "client">> {
  let state = await findServer(options.dataDir);
  let started = false;
  if (state === null) {
    if (!options.autostart) {
      throw new NoServerError(
        `No gateway is running for data dir "${options.dataDir}": start one with gateway start (or drop --no-autostart)`,
      );
    }
    options.progress?.(`starting gateway for ${options.rootDir}…`);
    state = await startBackgroundServer({
      rootFlag: options.rootFlag,
      dataDir: options.dataDir,
      ...(options.startTimeoutMs !== undefined ? { startTimeoutMs: options.startTimeoutMs } : {}),
    });
    started = true;
    options.progress?.(`gateway server ready on port ${state.port}`);
  }
  if (state.root !== options.rootDir) {
    throw new NoServerError(
      `The gateway running for data dir "${options.dataDir}" serves root "${state.root}", not "${options.rootDir}": ` +
        `stop it with gateway stop, or unset GATEWAY_DATA_DIR so each root gets its own server`,
    );
  }
  return { state, started };
}
