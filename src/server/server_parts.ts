/**
 * The heavy half of the server — the core, the method table, the HTTP routes and the MCP
 * endpoint — loaded by gateway_server.ts only once the listener is up, so `/health` answers
 * before any of it is parsed.
 * @module
 */

import type { LoadedConfig } from "../config/config_loader.ts";
import type { Logger } from "../logger.ts";
import type { createMcpHttpHandler } from "../mcp_server/mcp_http_handler.ts";
import { GATEWAY_VERSION } from "../protocol/gateway_version.ts";
import { GatewayCore, type GatewayPaths } from "./gateway_core.ts";
import { createHttpRoutes, type Listener } from "./http_routes.ts";
import { createRouter } from "./method_table.ts";
import type { DashboardSessions } from "./ui/dashboard_sessions.ts";
import type { ScriptCheckerWorker } from "../exec/script_checker_worker.ts";

/** The started core and what serves it. */
export interface ServerParts {
  core: GatewayCore;
  /** Answers a request that came in on `via` (the CLI's socket, or the TCP port). */
  fetch: (request: Request, via: Listener) => Response | Promise<Response>;
  /** Closes the MCP endpoint's sessions. */
  closeMcp: () => Promise<void>;
}

/** Starts the core and builds the routes over it. */
export async function startServerParts(options: {
  paths: GatewayPaths;
  loaded: LoadedConfig;
  log: Logger;
  token: string;
  port: () => number;
  /** Stops the server (`POST /stop`). */
  requestStop: () => void;
  /** The dashboard's sign-in codes and sessions, which the TCP front consults too. */
  sessions: DashboardSessions;
  /** The type checker, started before the parts loaded. */
  checker?: ScriptCheckerWorker;
}): Promise<ServerParts> {
  const { log, token } = options;
  const core = await GatewayCore.start(options.paths, options.loaded, log, {
    token,
    ...(options.checker ? { checker: options.checker } : {}),
  });
  const router = createRouter({
    registry: core.registry,
    catalogue: core,
    catalogueVersions: core.catalogueVersions,
    dispatcher: core.dispatcher,
    runs: core.runs,
    runner: core.runner,
    history: core.history,
    approvals: core.approvals,
    shared: core.shared,
    workflows: core.workflows,
    protocolLogs: core.protocolLogs,
    checker: core,
    configStatus: core,
    // Read per call: a config reload replaces it.
    config: () => core.config,
    root: core.paths.root,
    log,
  });
  const mcpOptions: Omit<Parameters<typeof createMcpHttpHandler>[0], "codec"> = {
    // Answers and notifications leave with the config's secrets masked.
    call: async (method, params, sink) =>
      core.outgoingMask.deep(
        await router.dispatch(method, params, {
          client: "mcp",
          // A run the MCP client cancels is cancelled here too.
          signal: sink?.signal ?? new AbortController().signal,
          ...(sink
            ? { notify: (m: string, p: unknown) => sink.notify(m, core.outgoingMask.deep(p)) }
            : {}),
        }),
      ),
    version: GATEWAY_VERSION,
    events: (listener) => {
      const gone = new AbortController();
      router.dispatch("events.subscribe", {}, {
        client: "mcp",
        signal: gone.signal,
        notify: listener,
      }).catch((error) => log.warn("mcp events unavailable", { error: String(error) }));
      return () => gone.abort();
    },
  };
  // The MCP endpoint (and the SDK's server half under it) loads on the first `/mcp` request:
  // a gateway used from the CLI or RPC never pays its memory.
  let mcpHandler: Promise<ReturnType<typeof createMcpHttpHandler>> | null = null;
  const mcp = async (request: Request): Promise<Response> => {
    mcpHandler ??= Promise.all([
      import("../mcp_server/mcp_http_handler.ts"),
      import("../mcp_server/gateway_mcp_server.ts"),
    ]).then(async ([http, server]) =>
      http.createMcpHttpHandler({
        ...mcpOptions,
        // Instances behind one proxy share the token, so a 2026-07-28 client's retry of a
        // held run is verified by whichever instance it reaches.
        codec: await server.heldStateCodec(token),
        onError: (message) => log.warn("mcp", { error: message }),
      })
    );
    return await (await mcpHandler)(request);
  };
  const app = createHttpRoutes({
    core,
    router,
    token,
    port: options.port,
    version: GATEWAY_VERSION,
    mcp,
    requestStop: options.requestStop,
    sessions: options.sessions,
  });
  return {
    core,
    fetch: (request, via) => app.fetch(request, { via }),
    closeMcp: async () => {
      if (mcpHandler !== null) await (await mcpHandler).close();
    },
  };
}
