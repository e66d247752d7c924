/**
 * One connection attempt to an upstream MCP server: picks the transport from its config (stdio,
 * streamable HTTP, SSE, or streamable-then-SSE) and runs the SDK handshake.
 * @module
 */

import { findLoginRequired, type UpstreamOAuthProvider } from "./upstream_oauth_provider.ts";
import type { McpServerConfig } from "../../config/gateway_config.ts";
import type { LogMethods } from "../../logger.ts";
import {
  Client,
  getDefaultEnvironment,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type Transport,
} from "./mcp_sdk.ts";
import { describeExit } from "../../process/describe_exit.ts";
import { StdioProcessTransport } from "./stdio_process_transport.ts";
import type { TailBuffer } from "./tail_buffer.ts";
import { messageOf } from "../../protocol/message_of.ts";
import type { ProtocolLog } from "./protocol_log.ts";
import { tapTransport } from "./protocol_tap.ts";

/** How the gateway introduces itself in `initialize`. */
const CLIENT_INFO = { name: "gateway", version: "0.1.0" };

/** A live, initialised connection. */
export interface UpstreamConnection {
  client: Client;
  /** The transport in use; "sse" also when "auto" fell back to it. */
  via: "stdio" | "streamable-http" | "sse";
  /** The child process, for stdio servers. */
  process?: StdioProcessTransport;
  /** Ends the connection: session DELETE for streamable HTTP, the kill sequence for stdio. */
  close(): Promise<void>;
}

/** Context of one attempt. */
export interface ConnectUpstreamOptions {
  /** Aborting it (start timeout, `stop()`) closes whatever was opened and rejects. */
  signal: AbortSignal;
  /** Receives the stdio child's stderr. */
  stderr: TailBuffer;
  logger: LogMethods;
  /** Called with the client before `initialize`, to install notification handlers. */
  setup?: (client: Client) => void;
  /** Grace after closing stdin and after SIGTERM. @default 2000 */
  killGraceMs?: number;
  /** Told the pid of a stdio child once spawned (the process ledger). */
  onSpawn?: (pid: number) => void;
  /** OAuth for an HTTP server that asks for it; absent = no authorization. */
  oauth?: UpstreamOAuthProvider;
  /** Told every message sent and received on the connection. */
  protocolLog?: ProtocolLog;
}

/**
 * Connects to the server `name` described by `config`. A stdio child gets the SDK's minimal
 * environment (`PATH`, `HOME`, `USER`, …) with `config.env` merged over it, already
 * `${env:}`-expanded by config loading. With `transport: "auto"` a failed streamable HTTP
 * handshake is retried over SSE (the old HTTP+SSE transport); both reasons are kept if that
 * fails too. Rejects with an `Error` saying what failed; nothing is left running then.
 */
export async function connectUpstream(
  name: string,
  config: McpServerConfig,
  options: ConnectUpstreamOptions,
): Promise<UpstreamConnection> {
  if ("command" in config) {
    const process = new StdioProcessTransport({
      command: config.command,
      args: config.args,
      env: { ...getDefaultEnvironment(), ...config.env },
      ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
      stderr: options.stderr,
      onStderrLine: (line) => options.logger.debug(`[${name} stderr] ${line}`),
      ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
      ...(options.onSpawn ? { onSpawn: options.onSpawn } : {}),
    });
    options.logger.info(
      `Starting MCP server "${name}": ${[config.command, ...config.args].join(" ")}`,
    );
    try {
      const client = await handshake(process, options);
      return { client, via: "stdio", process, close: () => client.close() };
    } catch (error) {
      const status = process.exitStatus;
      if (status === undefined || options.signal.aborted) throw error;
      throw new Error(`${describeExit(status)} during initialize`, { cause: error });
    }
  }
  const url = new URL(config.url);
  const requestInit: RequestInit = { headers: config.headers };
  const auth = options.oauth ? { authProvider: options.oauth, fetch: options.oauth.fetch } : {};
  const viaStreamable = async (): Promise<UpstreamConnection> => {
    const transport = new StreamableHTTPClientTransport(url, { requestInit, ...auth });
    const client = await handshake(transport, options);
    return {
      client,
      via: "streamable-http",
      close: async () => {
        await transport.terminateSession().catch(() => {});
        await client.close();
      },
    };
  };
  const viaSse = async (): Promise<UpstreamConnection> => {
    const client = await handshake(new SSEClientTransport(url, { requestInit, ...auth }), options);
    return { client, via: "sse", close: () => client.close() };
  };
  if (config.transport === "streamable-http") return await viaStreamable();
  if (config.transport === "sse") return await viaSse();
  try {
    return await viaStreamable();
  } catch (streamableError) {
    if (options.signal.aborted) throw streamableError;
    // The server is there and wants a login: SSE would only ask again.
    const login = findLoginRequired(streamableError);
    if (login) throw login;
    options.logger.info(
      `MCP server "${name}" refused streamable HTTP (${messageOf(streamableError)}): trying SSE`,
    );
    try {
      return await viaSse();
    } catch (sseError) {
      if (options.signal.aborted) throw sseError;
      throw new Error(
        `Cannot connect to "${url}": streamable HTTP failed (${
          messageOf(streamableError)
        }), SSE failed (${messageOf(sseError)})`,
        { cause: sseError },
      );
    }
  }
}

async function handshake(
  transport: Transport,
  options: ConnectUpstreamOptions,
): Promise<Client> {
  options.signal.throwIfAborted();
  if (options.protocolLog) tapTransport(transport, options.protocolLog);
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  options.setup?.(client);
  const abort = () => void client.close().catch(() => {});
  options.signal.addEventListener("abort", abort, { once: true });
  try {
    // The attempt's own deadline is the signal; the SDK's default 60 s must not cut in first.
    await client.connect(transport, { signal: options.signal, timeout: 2 ** 31 - 1 });
    return client;
  } catch (error) {
    await client.close().catch(() => {});
    await transport.close().catch(() => {});
    throw error;
  } finally {
    options.signal.removeEventListener("abort", abort);
  }
}
