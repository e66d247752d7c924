/**
 * Starting `gateway server` detached and asking it whether it is up: shared by the full CLI
 * (`server_connection.ts`) and the installed command's fast `gateway start` (`fast_start.ts`),
 * so it loads only Deno APIs (no `node:` module, whose first import costs that path more than the
 * rest of its work).
 * @module
 */

import { readServerState, type ServerState } from "../config/server_state.ts";
import { SERVER_V8_FLAGS } from "../config/server_v8_flags.ts";
import { ConfigError } from "../config/config_error.ts";
import { filePathOf } from "../config/path_text.ts";
import { NoServerError } from "./no_server_error.ts";
import { endpointOf, ForeignSocketError, GatewayHttpClient } from "./gateway_http_client.ts";

/** The background server's log: `DATA_DIR/server.log`. */
export function serverLogPath(dataDir: string): string {
  const separator = Deno.build.os === "windows" ? "\\" : "/";
  return `${dataDir.replace(/[\\/]+$/, "")}${separator}server.log`;
}

/** Starts `gateway server` detached, logging to the data dir; returns its process. */
export function spawnBackgroundServer(
  options: { rootFlag: string | null; dataDir: string },
): Deno.ChildProcess {
  const args = [
    "run",
    "--allow-all",
    "--no-prompt",
    "--quiet",
    SERVER_V8_FLAGS,
    filePathOf(new URL("../main.ts", import.meta.url)),
    "server",
    "--log-file",
    serverLogPath(options.dataDir),
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
  return child;
}

/**
 * How the server answers `/health` on its socket: "up", "starting" (listening, its parts still
 * loading: they may yet fail, and then the process exits with the reason in its log), or null
 * (not answering). `waitUp` asks a starting server to hold the answer until its parts are up
 * (up to 1 s), so the caller learns it in the same turn instead of on a later poll. A socket
 * that is not this user's is an error, not "not answering".
 */
export async function serverHealth(
  state: ServerState,
  waitUp: boolean,
): Promise<"up" | "starting" | null> {
  let client: GatewayHttpClient;
  try {
    client = new GatewayHttpClient(endpointOf(state, state.dataDir));
  } catch (error) {
    if (error instanceof ForeignSocketError) throw error;
    // The socket or the token is not there (yet): a server that has just taken the lock has
    // not rewritten the `server.json` of the one before it. Not answering, for now.
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
  try {
    const answer = await client.send("GET", `/health${waitUp ? "?wait=up" : ""}`, {
      signal: AbortSignal.timeout(2000),
    });
    if (answer.status !== 200) return null;
    const body = answer.body;
    const starting = typeof body === "object" && body !== null && "starting" in body &&
      body.starting === true;
    return starting ? "starting" : "up";
  } catch {
    return null;
  } finally {
    await client.close();
  }
}

/**
 * The server that runs for `dataDir` (it holds the data dir's lock), if it answers on its
 * socket; with `up`, only once its parts have loaded (what a client that just started it waits
 * for).
 */
export async function findServer(
  dataDir: string,
  options: { up?: boolean } = {},
): Promise<ServerState | null> {
  const found = await readServerState(dataDir);
  if (!found || found.stale) return null;
  const answer = await serverHealth(found.state, options.up === true);
  if (answer === null || (options.up === true && answer === "starting")) return null;
  return found.state;
}

/** The last error the server log holds, as `: message`, or "" when there is none. */
async function logTail(dataDir: string): Promise<string> {
  try {
    const lines = (await Deno.readTextFile(serverLogPath(dataDir))).trim().split("\n");
    for (const line of lines.reverse()) {
      const entry = JSON.parse(line) as { level?: string; message?: string };
      if (entry.level === "error" && entry.message) return `: ${entry.message}`;
    }
  } catch {
    // no log yet, or not JSON: nothing to add
  }
  return "";
}

/**
 * Starts `gateway server` in the background for `dataDir` and waits until its parts are up;
 * throws `ConfigError` when it died of a bad config, `NoServerError` when it died otherwise or
 * did not answer in time (each naming its log).
 */
export async function startBackgroundServer(
  options: { rootFlag: string | null; dataDir: string; startTimeoutMs?: number },
): Promise<ServerState> {
  await Deno.mkdir(options.dataDir, { recursive: true, mode: 0o700 });
  const child = spawnBackgroundServer({ rootFlag: options.rootFlag, dataDir: options.dataDir });
  const pid = child.pid;
  let exited = false;
  child.status.then(() => (exited = true), () => (exited = true));
  const timeoutMs = options.startTimeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exited) {
      const reason = await logTail(options.dataDir);
      // A bad config is the user's to fix, like a usage error (exit 2, error[Config]).
      if (/: start-up failed: (Invalid config|Invalid JSON in|Cannot read config)/.test(reason)) {
        throw new ConfigError(reason.replace(/^: start-up failed: /, ""));
      }
      throw new NoServerError(
        `The gateway server could not start${reason} (log: ${serverLogPath(options.dataDir)})`,
      );
    }
    if (Date.now() > deadline) {
      throw new NoServerError(
        `The gateway server (pid ${pid}) did not answer within ${timeoutMs / 1000} s: see ${
          serverLogPath(options.dataDir)
        }`,
      );
    }
    // Until server.json appears, a read every 10 ms; once it does, the probe is held by the
    // server until its parts are up (`?wait=up`), so the caller learns it within a few ms.
    await new Promise((r) => setTimeout(r, 10));
    const state = await findServer(options.dataDir, { up: true });
    if (state !== null) return state;
  }
}
