/**
 * Finds the running server for a data dir and root, or starts one in the background and waits
 * until it answers (SPEC §1: one command does the main job on a fresh checkout).
 * @module
 */

import { readServerState, type ServerState } from "../config/server_state.ts";
import { readToken } from "../config/token_file.ts";
import { findServer, startBackgroundServer } from "./background_server.ts";
import { GatewayClient } from "./gateway_client.ts";
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

/** A usable connection and what it connected to. */
export interface ServerConnection {
  client: GatewayClient;
  state: ServerState;
  token: string;
  started: boolean;
}

export { NoServerError } from "./no_server_error.ts";
export { findServer } from "./background_server.ts";

/** Connects to the server, starting one first when allowed and needed. */
export async function connectToServer(options: ConnectOptions): Promise<ServerConnection> {
  // Fast path: a live server.json for this root means one WebSocket handshake and no health
  // probe (the CLI's start-up is part of every run's latency). Any failure takes the slow path.
  const recorded = await readServerState(options.dataDir);
  if (recorded && !recorded.stale && recorded.state.root === options.rootDir) {
    try {
      const token = await readToken(options.dataDir);
      const client = await GatewayClient.connect({
        host: "127.0.0.1",
        port: recorded.state.port,
        token,
        timeoutMs: 2000,
      });
      return { client, state: recorded.state, token, started: false };
    } catch {
      // not answering after all (crashed, or the pid now belongs to someone else)
    }
  }
  const { state, token, started } = await ensureServer(options);
  const client = await GatewayClient.connect({ host: "127.0.0.1", port: state.port, token });
  return { client, state, token, started };
}

/**
 * The server of this data dir and root once it answers `/health` (with its parts up when this
 * call started it), starting one when allowed and needed — no WebSocket: `gateway start` needs
 * no more.
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
  return { state, token: await readToken(options.dataDir), started };
}
