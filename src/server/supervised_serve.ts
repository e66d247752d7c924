/**
 * `Deno.serve` that outlives its own accept loop: when the loop dies (a flood of connections
 * exhausting file descriptors ends it with EMFILE), the server logs why and listens again on
 * the same address with back-off, instead of the process dying of an uncaught rejection
 * (issue 9, item 3). Deno.serve offers no connection cap or header-read timeout to prevent
 * the flood itself; surviving it and answering `/health` afterwards is the guarantee.
 * @module
 */

/** A server whose listener is restarted when it fails. */
export interface SupervisedServer {
  /** The bound address (the port stays the same across restarts). */
  readonly addr: Deno.NetAddr;
  /** Stops listening for good and waits for requests in flight. */
  shutdown(): Promise<void>;
}

/** Longest pause between attempts to listen again. */
const MAX_BACKOFF_MS = 5000;

/** Serves `handler` on `hostname:port`; throws only when the first listen fails. */
export function serveSupervised(options: {
  hostname: string;
  port: number;
  handler: Deno.ServeHandler;
  log: (message: string, fields?: Record<string, unknown>) => void;
}): SupervisedServer {
  let current = Deno.serve({
    hostname: options.hostname,
    port: options.port,
    onListen: () => {},
  }, options.handler);
  const addr = current.addr as Deno.NetAddr;
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
        current = Deno.serve({
          hostname: addr.hostname,
          port: addr.port,
          onListen: () => {},
        }, options.handler);
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
