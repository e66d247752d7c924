/**
 * The server process: refuses a second instance for the same data dir (its lock), listens
 * first — on the data dir's unix socket for the user's CLI, and on the loopback TCP port for
 * everything else — so `/health` answers at once, every namespace "starting"; then loads and
 * starts the core and its routes, publishes `server.json`, and shuts down cleanly on
 * SIGTERM/SIGINT or `POST /stop`. Requests other than `/health` that arrive while the core
 * starts wait for it.
 * @module
 */

import type { LoadedConfig } from "../config/config_loader.ts";
import { registerServer, withdrawServer } from "../config/server_registry.ts";
import { GATEWAY_VERSION } from "../protocol/gateway_version.ts";
import { ServerStartError } from "./server_start_error.ts";

export { GATEWAY_VERSION, ServerStartError };
import type { Logger } from "../logger.ts";
import type { GatewayCore } from "./gateway_core.ts";
import type { GatewayPaths } from "./gateway_paths.ts";
import type { ServerParts } from "./server_parts.ts";
import type { ScriptCheckerWorker } from "../exec/script_checker_worker.ts";
import { join } from "node:path";
import { bootHealth } from "./boot_health.ts";
import type { Listener } from "./http_routes.ts";
import { openListeners, type ServerListeners } from "./server_listeners.ts";
import type { RequestHead } from "./tcp_front.ts";
import { checkToken } from "./request_guard.ts";
import { DashboardSessions } from "./ui/dashboard_sessions.ts";
import { ensureToken } from "../config/token_file.ts";
import { unsafeReason } from "../config/root_safety.ts";
import {
  readServerState,
  removeServerState,
  serverLockPath,
  serverStatePath,
  writeServerState,
} from "../config/server_state.ts";
import { settlesWithin } from "../process/terminate_process_group.ts";

/** The port a gateway takes when its config names none and it is free. */
const DEFAULT_PORT = 9420;

/**
 * How long `/health?wait=up` is held while the parts load before it answers "starting" (the
 * client asks again); under the CLI's 2 s probe timeout.
 */
const HEALTH_WAIT_MS = 1000;

/**
 * How long the type checker's process, started with the server, is kept for a first run that
 * does not come (then its memory goes back until a run needs it); never longer than
 * `exec.checkerIdleMs`.
 */
const CHECKER_PRELOAD_GRACE_MS = 30_000;

/** How long runs in flight may finish after SIGTERM before they are cancelled. */
const SHUTDOWN_GRACE_MS = 5000;

/**
 * How many times the lock is tried before the data dir counts as taken: a client probing
 * whether a server runs holds it (shared) for a moment (`serverLockHeld`).
 */
const LOCK_ATTEMPTS = 20;

/** A running server. */
export interface RunningServer {
  port: number;
  core: GatewayCore;
  /** Resolves when the server has stopped (after `stop()` or a signal). */
  finished: Promise<void>;
  stop(): Promise<void>;
}

/** Starts the server in this process. */
export async function startGatewayServer(
  options: { paths: GatewayPaths; loaded: LoadedConfig; log: Logger; handleSignals?: boolean },
): Promise<RunningServer> {
  const { paths } = options;
  const lock = await acquireServerLock(paths.dataDir);
  try {
    return await startLocked(options, lock);
  } catch (error) {
    lock.close();
    throw error;
  }
}

/**
 * Takes the data dir's exclusive lock, held (by the open file) for the server's whole life, so
 * two servers can never share a data dir however they race. The
 * kernel drops it when the process dies, even by `kill -9`.
 */
async function acquireServerLock(dataDir: string): Promise<Deno.FsFile> {
  await Deno.mkdir(dataDir, { recursive: true, mode: 0o700 });
  refuseSharedDataDir(dataDir);
  const file = await Deno.open(serverLockPath(dataDir), {
    read: true,
    write: true,
    create: true,
    mode: 0o600,
  });
  let locked = await file.tryLock(true);
  for (let attempt = 1; !locked && attempt < LOCK_ATTEMPTS; attempt++) {
    await new Promise((r) => setTimeout(r, 10));
    locked = await file.tryLock(true);
  }
  if (!locked) {
    file.close();
    const existing = await readServerState(dataDir);
    const who = existing
      ? ` (pid ${existing.state.pid}, port ${existing.state.port}, root "${existing.state.root}")`
      : "";
    throw new ServerStartError(
      `A gateway is already running for data dir "${dataDir}"${who}: ` +
        `stop it with gateway stop, or set GATEWAY_DATA_DIR to use another data dir`,
    );
  }
  return file;
}

/**
 * Refuses a data dir another user owns or can write to: its socket, token and `server.json` are
 * what tells the CLI it is talking to its own server.
 */
function refuseSharedDataDir(dataDir: string): void {
  const uid = Deno.uid();
  if (uid === null) return;
  const reason = unsafeReason(Deno.statSync(dataDir), { uid, gid: Deno.gid() });
  if (reason !== null) {
    throw new ServerStartError(
      `Refusing data dir "${dataDir}": it ${reason}, and it holds the token and the socket ` +
        `that prove the server is yours: chmod 700 "${dataDir}", or set GATEWAY_DATA_DIR to a ` +
        `directory of your own`,
    );
  }
}

async function startLocked(
  options: { paths: GatewayPaths; loaded: LoadedConfig; log: Logger; handleSignals?: boolean },
  lock: Deno.FsFile,
): Promise<RunningServer> {
  const { paths, loaded, log } = options;
  // The lock is ours, so a server.json left here names a server that is gone (its pid may
  // since belong to anyone): it goes at once, so while a server holds the lock, the
  // server.json beside it is that server's or none.
  const existing = await readServerState(paths.dataDir);
  if (existing && existing.state.pid !== Deno.pid) {
    log.info("removing a stale server.json", { pid: existing.state.pid });
    await Deno.remove(serverStatePath(paths.dataDir)).catch(() => undefined);
  }
  const token = await ensureToken(paths.dataDir);
  const sessions = new DashboardSessions();
  let port = 0;
  // Until the parts are up, /health answers from the config alone and the rest waits.
  let parts: ServerParts | null = null;
  const booted = Promise.withResolvers<ServerParts>();
  booted.promise.catch(() => undefined); // the start-up failure is thrown below
  const handler = (via: Listener): Deno.ServeHandler => async (request) => {
    if (parts !== null) return await parts.fetch(request, via);
    const url = new URL(request.url);
    if (url.pathname === "/health" && url.searchParams.get("wait") === "up") {
      // The CLI that started this server waits for its parts: answered in the same turn as they
      // come up, before the pool and the MCP code start loading (a poll would land behind
      // them).
      if (await settlesWithin(booted.promise, HEALTH_WAIT_MS)) {
        const up = await booted.promise.catch(() => null);
        if (up !== null) return await up.fetch(request, via);
      }
    }
    if (url.pathname === "/health") {
      return bootHealth(request, {
        token,
        trusted: via === "socket",
        port: () => port,
        version: GATEWAY_VERSION,
        rootDir: paths.root.dir,
        loaded,
      });
    }
    let ready: ServerParts;
    try {
      ready = await booted.promise;
    } catch {
      return Response.json({ error: { message: "The gateway failed to start: see its log" } }, {
        status: 503,
      });
    }
    return await ready.fetch(request, via);
  };
  // Signal listeners are taken before the port is published: Deno needs a descriptor to add
  // one and panics when there is none left (a flood of connections during the start,
  // hostile_client_test). Until the parts are up, a signal ends the start.
  let onSignal = (): void => {
    log.info("signal received while starting; exiting");
    unpublish(paths).finally(() => Deno.exit(0));
  };
  const signalled = () => onSignal();
  const dropSignals = () => {
    if (!options.handleSignals) return;
    Deno.removeSignalListener("SIGTERM", signalled);
    Deno.removeSignalListener("SIGINT", signalled);
  };
  if (options.handleSignals) {
    Deno.addSignalListener("SIGTERM", signalled);
    Deno.addSignalListener("SIGINT", signalled);
  }
  const config = loaded.config;
  let listeners: ServerListeners;
  try {
    listeners = openListeners({
      dataDir: paths.dataDir,
      hostname: config.host,
      port: config.port ?? DEFAULT_PORT,
      // Several projects each run a gateway: without a configured port, the second takes any
      // free one (clients find it in server.json).
      fallbackPort: config.port === undefined ? 0 : null,
      handler,
      authenticated: (head) => credentialed(head, { token, sessions, port }),
      log,
      settle: (promise) => settlesWithin(promise, 2000),
    });
  } catch (error) {
    dropSignals();
    if (error instanceof Deno.errors.AddrInUse) {
      throw new ServerStartError(
        `Port ${config.port} on ${config.host} is in use by another program: set "port" in ${
          paths.root.configFile ?? "gateway.json"
        } or $GATEWAY_PORT (0 picks a free one), or stop that program`,
        { cause: error },
      );
    }
    throw new ServerStartError(`Cannot listen: ${(error as Error).message}`, { cause: error });
  }
  port = listeners.port;
  const closeListeners = () => listeners.close();
  await writeServerState(paths.dataDir, {
    pid: Deno.pid,
    host: config.host,
    port,
    socket: listeners.cliSocket,
    root: paths.root.dir,
    dataDir: paths.dataDir,
    version: GATEWAY_VERSION,
    startedAt: new Date().toISOString(),
  });
  // Listed by root, so a CLI in another environment (an MCP host's) finds this server.
  const unlisted = registerServer({ root: paths.root.dir, dataDir: paths.dataDir, pid: Deno.pid });
  if (unlisted !== null) log.warn(unlisted);
  log.info("gateway listening", { host: config.host, port, root: paths.root.dir });
  let checker: ScriptCheckerWorker | undefined;
  try {
    // The type checker's process boots beside the parts: every run starts by parsing its
    // script there, and loading TypeScript takes that process longer than the parts take here.
    const { ScriptCheckerWorker }: typeof import("../exec/script_checker_worker.ts") = await import(
      new URL("../exec/script_checker_worker.ts", import.meta.url).href
    );
    checker = ScriptCheckerWorker.start({
      cacheDir: join(paths.dataDir, "cache"),
      idleMs: () => (parts?.core.config ?? config).exec.checkerIdleMs,
    });
    checker.preload(Math.min(CHECKER_PRELOAD_GRACE_MS, config.exec.checkerIdleMs));
    // A computed specifier: a literal `import()` puts the parts' whole graph (its modules and
    // their npm packages) into the graph Deno resolves when this module loads, before listening.
    const { importServerParts }: typeof import("./staged_import.ts") = await import(
      new URL("./staged_import.ts", import.meta.url).href
    );
    const { startServerParts } = await importServerParts();
    parts = await startServerParts({
      paths,
      loaded,
      log,
      token,
      port: () => port,
      requestStop: () => onSignal(),
      sessions,
      checker,
    });
    booted.resolve(parts);
  } catch (error) {
    dropSignals();
    booted.reject(error);
    await checker?.close();
    await unpublish(paths);
    await closeListeners();
    throw error;
  }
  const { core } = parts;
  const closeMcp = parts.closeMcp;

  let stopping: Promise<void> | null = null;
  let resolveFinished!: () => void;
  const finished = new Promise<void>((r) => (resolveFinished = r));
  onSignal = () => {
    // A terminal's Ctrl-C reaches the installed command and the server it runs, and the
    // command passes its own on (src/cli/fast_main.ts): a second signal is the same request.
    // The listeners stay until the stop is done, so it never kills the server half-way.
    if (stopping) return;
    log.info("signal received; stopping");
    stop();
  };
  const stop = () => {
    stopping ??= (async () => {
      await unpublish(paths);
      // Stop taking work, give runs in flight a grace period, then cancel what is left.
      // The listener stays open meanwhile so their callers get their answers.
      core.beginShutdown();
      const graceEnds = Date.now() + SHUTDOWN_GRACE_MS;
      while (core.runner.activeCount > 0 && Date.now() < graceEnds) {
        await new Promise((r) => setTimeout(r, 50));
      }
      // Runs still going are cancelled while the listener is open, so each caller receives
      // its Cancelled run document rather than a closed connection.
      await core.runner.close();
      await new Promise((r) => setTimeout(r, 50)); // let the last answers go out
      await closeMcp();
      const shutdown = closeListeners();
      await core.stop();
      await shutdown;
      lock.close();
      resolveFinished();
    })().finally(dropSignals);
    return stopping;
  };
  return { port, core, finished, stop };
}

/**
 * Whether a connection's first request carries a credential the routes accept: the token (as
 * a header, or as `?token=` on `/ws` and `/ui`), or a dashboard session. Decides only how long
 * the TCP front lets the connection live (see `tcp_front.ts`); the routes check every request.
 */
function credentialed(
  head: RequestHead,
  options: { token: string; sessions: DashboardSessions; port: number },
): boolean {
  let request: Request;
  try {
    request = new Request(new URL(head.target, "http://localhost"), { headers: head.headers });
  } catch {
    return false; // not a path the routes could answer
  }
  const path = new URL(request.url).pathname;
  const page = path === "/ws" || path === "/ui" || path.startsWith("/ui/");
  if (checkToken(request, { token: options.token, allowQuery: page }) === null) return true;
  // Any port's cookie name would do here: only a live session's secret counts.
  const cookie = request.headers.get("cookie") ?? "";
  return page &&
    [...cookie.matchAll(/gateway_session_\d+=([0-9a-f]+)/g)].some((m) =>
      options.sessions.isSession(m[1]!)
    );
}

/** Removes what this server published about itself: `server.json` and its registry entry. */
async function unpublish(paths: GatewayPaths): Promise<void> {
  withdrawServer({ root: paths.root.dir, dataDir: paths.dataDir, pid: Deno.pid });
  await removeServerState(paths.dataDir, Deno.pid);
}
