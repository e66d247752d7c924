/**
 * Finds the running server for a data dir and root, or starts one in the background and waits
 * until it answers (SPEC §1: one command does the main job on a fresh checkout).
 * @module
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { pidAlive, readServerState, type ServerState } from "../config/server_state.ts";
import { readToken } from "../config/token_file.ts";
import { SERVER_V8_FLAGS } from "../config/server_v8_flags.ts";
import { GatewayClient } from "./gateway_client.ts";
import { ConfigError } from "../config/config_error.ts";
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

/**
 * How the server answers `/health`: "up", "starting" (listening, its parts still loading: they
 * may yet fail, and then the process exits with the reason in its log), or null (not answering).
 * `waitUp` asks a starting server to hold the answer until its parts are up (up to 1 s), so the
 * caller learns it in the same turn instead of on a later poll.
 */
async function health(state: ServerState, waitUp: boolean): Promise<"up" | "starting" | null> {
  try {
    const response = await fetch(
      `http://127.0.0.1:${state.port}/health${waitUp ? "?wait=up" : ""}`,
      {
        signal: AbortSignal.timeout(2000),
      },
    );
    if (!response.ok) {
      await response.body?.cancel();
      return null;
    }
    const body: unknown = await response.json();
    const starting = typeof body === "object" && body !== null && "starting" in body &&
      body.starting === true;
    return starting ? "starting" : "up";
  } catch {
    return null;
  }
}

/**
 * The server that runs for `dataDir`, if it is alive and answering; with `up`, only once its
 * parts have loaded (what a client that just started it waits for).
 */
export async function findServer(
  dataDir: string,
  options: { up?: boolean } = {},
): Promise<ServerState | null> {
  const found = await readServerState(dataDir);
  if (!found || found.stale) return null;
  const answer = await health(found.state, options.up === true);
  if (answer === null || (options.up === true && answer === "starting")) return null;
  return found.state;
}

/** Starts `gateway server` detached, logging to the data dir. */
export function spawnBackgroundServer(
  options: { rootFlag: string | null; dataDir: string },
): number {
  const main = fileURLToPath(new URL("../main.ts", import.meta.url));
  const args = [
    "run",
    "--allow-all",
    "--no-prompt",
    "--quiet",
    SERVER_V8_FLAGS,
    main,
    "server",
    "--log-file",
    join(options.dataDir, "server.log"),
    ...(options.rootFlag ? ["--root", options.rootFlag] : []),
  ];
  const child = new Deno.Command(Deno.execPath(), {
    args,
    env: { GATEWAY_DATA_DIR: options.dataDir },
    stdin: "null",
    stdout: "null",
    stderr: "null",
    detached: true,
  }).spawn();
  child.unref();
  return child.pid;
}

/** The last error the server log holds, as `: message`, or "" when there is none. */
async function logTail(dataDir: string): Promise<string> {
  try {
    const lines = (await Deno.readTextFile(join(dataDir, "server.log"))).trim().split("\n");
    for (const line of lines.reverse()) {
      const entry = JSON.parse(line) as { level?: string; message?: string };
      if (entry.level === "error" && entry.message) return `: ${entry.message}`;
    }
  } catch {
    // no log yet, or not JSON: nothing to add
  }
  return "";
}

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
    await Deno.mkdir(options.dataDir, { recursive: true, mode: 0o700 });
    const pid = spawnBackgroundServer({ rootFlag: options.rootFlag, dataDir: options.dataDir });
    const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
    while (state === null) {
      if (!pidAlive(pid)) {
        const reason = await logTail(options.dataDir);
        // A bad config is the user's to fix, like a usage error (exit 2, error[Config]).
        if (/: start-up failed: (Invalid config|Invalid JSON in|Cannot read config)/.test(reason)) {
          throw new ConfigError(reason.replace(/^: start-up failed: /, ""));
        }
        throw new NoServerError(
          `The gateway server could not start${reason} (log: ${
            join(options.dataDir, "server.log")
          })`,
        );
      }
      if (Date.now() > deadline) {
        throw new NoServerError(
          `The gateway server (pid ${pid}) did not answer within ${
            (options.startTimeoutMs ?? 30_000) / 1000
          } s: see ${join(options.dataDir, "server.log")}`,
        );
      }
      // A /health probe costs the starting server next to nothing: ask often, so the caller
      // learns it is up within a few ms.
      await new Promise((r) => setTimeout(r, 10));
      state = await findServer(options.dataDir, { up: true });
    }
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
