/**
 * Everything a server listens on, opened and closed together: the CLI's unix socket (requests
 * there are trusted: see `http_routes.ts`), the TCP port through its front (`tcp_front.ts`:
 * header timeout, a cap on connections without a credential), and the unix socket the front
 * hands connections to. Where there are no unix sockets (Windows), the port is served directly.
 * @module
 */

import type { Logger } from "../logger.ts";
import type { Listener } from "./http_routes.ts";
import { localSockets } from "./local_socket.ts";
import { serveSupervised, type SupervisedServer } from "./supervised_serve.ts";
import { listenFront, type RequestHead, type TcpFront } from "./tcp_front.ts";

/** The open listeners. */
export interface ServerListeners {
  /** The TCP port taken. */
  port: number;
  /** The CLI's socket, or null where there is none. */
  cliSocket: string | null;
  /** Stops accepting, lets answers in flight finish (up to a bound), removes the sockets. */
  close(): Promise<void>;
}

/** Options of {@linkcode openListeners}. */
export interface ListenOptions {
  dataDir: string;
  hostname: string;
  /** The port to take; `fallbackPort` is tried when it is in use (null: fail instead). */
  port: number;
  fallbackPort: number | null;
  /** Answers a request that came in on `via`. */
  handler(via: Listener): Deno.ServeHandler;
  /** Whether a connection's first request carries a credential (see `tcp_front.ts`). */
  authenticated(head: RequestHead): boolean;
  log: Pick<Logger, "info" | "error">;
  /** Waits for a promise, up to a bound (answers still running at a stop). */
  settle(promise: Promise<unknown>): Promise<unknown>;
}

/**
 * Opens the listeners. Throws `Deno.errors.AddrInUse` when the port (and its fallback) is
 * taken, and whatever else stops a socket from being bound; nothing stays open then.
 */
export function openListeners(options: ListenOptions): ServerListeners {
  const sockets = localSockets(options.dataDir);
  if (sockets === null) {
    const direct = listenDirect(options);
    return {
      port: (direct.addr as Deno.NetAddr).port,
      cliSocket: null,
      close: async () => void await options.settle(direct.shutdown()),
    };
  }
  const servers: SupervisedServer[] = [];
  const unix = (path: string, via: Listener) => {
    const server = serveSupervised({
      address: { path },
      handler: options.handler(via),
      log: (message, fields) => options.log.error(message, fields),
    });
    servers.push(server);
    // Only this user may connect, whatever the umask (the directory is private already).
    Deno.chmodSync(path, 0o600);
  };
  let front: TcpFront;
  try {
    unix(sockets.cli, "socket");
    unix(sockets.http, "tcp");
    const listen = (port: number) =>
      listenFront({
        hostname: options.hostname,
        port,
        target: sockets.http,
        authenticated: options.authenticated,
        log: (message, fields) => options.log.error(message, fields),
      });
    try {
      front = listen(options.port);
    } catch (error) {
      if (!(error instanceof Deno.errors.AddrInUse) || options.fallbackPort === null) throw error;
      options.log.info("port in use; taking another", { port: options.port });
      front = listen(options.fallbackPort);
    }
  } catch (error) {
    for (const server of servers) server.shutdown();
    for (const path of [sockets.cli, sockets.http]) removeQuietly(path);
    throw error;
  }
  return {
    port: front.addr.port,
    cliSocket: sockets.cli,
    close: async () => {
      front.shutdown();
      await Promise.all(servers.map((server) => options.settle(server.shutdown())));
      front.closeAll();
      for (const path of [sockets.cli, sockets.http]) removeQuietly(path);
    },
  };
}

function listenDirect(options: ListenOptions): SupervisedServer {
  const listen = (port: number) =>
    serveSupervised({
      address: { hostname: options.hostname, port },
      handler: options.handler("tcp"),
      log: (message, fields) => options.log.error(message, fields),
    });
  try {
    return listen(options.port);
  } catch (error) {
    if (!(error instanceof Deno.errors.AddrInUse) || options.fallbackPort === null) throw error;
    options.log.info("port in use; taking another", { port: options.port });
    return listen(options.fallbackPort);
  }
}

function removeQuietly(path: string): void {
  try {
    Deno.removeSync(path);
  } catch {
    // gone already
  }
}
