/**
 * `Deno.serve` that outlives its own accept loop: when the loop dies (descriptors exhausted
 * end it with EMFILE), the server logs why and listens again on the same address with
 * back-off, instead of the process dying of an uncaught rejection. Serves a TCP port or a unix
 * socket; a socket's file is replaced when it listens again (the caller holds the data dir's
 * lock, so no other server can own it).
 * @module
 */

/** A server whose listener is restarted when it fails. */
export interface SupervisedServer {
  /** The bound address (the port or socket stays the same across restarts). */
  readonly addr: Deno.Addr;
  /** Stops listening for good and waits for requests in flight. */
  shutdown(): Promise<void>;
}

/** Where to listen: a TCP address, or a unix socket's path. */
export type ListenAddress = { hostname: string; port: number } | { path: string };

/** Longest pause between attempts to listen again. */
const MAX_BACKOFF_MS = 5000;

/** Serves `handler` on `hostname:port`; throws only when the first listen fails. */
export function serveSupervised(options: {
  address: ListenAddress;
  handler: Deno.ServeHandler;
  log: (message: string, fields?: Record<string, unknown>) => void;
}): SupervisedServer {
  const listen = (address: ListenAddress): Deno.HttpServer => {
    if ("path" in address) {
      try {
        Deno.removeSync(address.path); // left by a server that is gone (see above)
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      }
    }
    return Deno.serve({ ...address, onListen: () => {} }, options.handler);
  };
  let current = listen(options.address);
  const addr = current.addr;
  const again: ListenAddress = "path" in options.address
    ? options.address
    : { hostname: (addr as Deno.NetAddr).hostname, port: (addr as Deno.NetAddr).port };
  let stopped = false;
  let backoffMs = 50;
  const watch = (server: Deno.HttpServer) => {
    server.finished.then(
      () => {
        if (!stopped) restart(new Error("the listener closed"));
      },
      (error) => {
        if (!stopped) restart(error);
      },
    );
  };
  const restart = (error: unknown) => {
    options.log("the HTTP listener failed; listening again", {
      error: String(error),
      retryInMs: backoffMs,
    });
    setTimeout(function attempt() {
      if (stopped) return;
      try {
        current = listen(again);
        backoffMs = 50;
        watch(current);
      } catch (again) {
        backoffMs = Math.min(backoffMs * 2, MAX_BACKOFF_MS);
        options.log("cannot listen again yet", { error: String(again), retryInMs: backoffMs });
        setTimeout(attempt, backoffMs);
      }
    }, backoffMs);
  };
  watch(current);
  return {
    addr,
    shutdown: () => {
      stopped = true;
      return current.shutdown();
    },
  };
}
