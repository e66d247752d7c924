/**
 * One connection attempt to an upstream MCP server: picks the transport from its config (stdio,
 * streamable HTTP, SSE, or streamable-then-SSE) and settles the protocol era: with a kept
 * verdict (`prior`) the client adopts it at once, without one it asks the server with
 * `server/discover` and falls back to the 2025 `initialize` handshake when the server does not
 * speak the 2026-07-28 era.
 * @module
 */

import { findLoginRequired, type UpstreamOAuthProvider } from "./upstream_oauth_provider.ts";
import type { McpServerConfig } from "../../config/gateway_config.ts";
import type { LogMethods } from "../../logger.ts";
import {
  Client,
  type ClientCapabilities,
  type DiscoverResult,
  ENVELOPE_KEYS,
  type PriorDiscovery,
  SdkError,
  SdkErrorCode,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type Transport,
} from "./mcp_sdk.ts";
import { describeExit } from "../../process/describe_exit.ts";
import { inheritedEnvironment, StdioProcessTransport } from "./stdio_process_transport.ts";
import type { TailBuffer } from "./tail_buffer.ts";
import { CallQuestions } from "./call_questions.ts";
import { messageOf } from "../../protocol/message_of.ts";
import type { ProtocolLog } from "./protocol_log.ts";
import { tapTransport } from "./protocol_tap.ts";
import { relayTasks } from "./task_relay.ts";

/** How the gateway introduces itself (`initialize`, and every 2026-07-28 request's `_meta`). */
export const CLIENT_INFO = { name: "gateway", version: "0.1.0" };

/** The Tasks extension's identifier (a server may answer a long call with a task). */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/**
 * What the gateway can do for a server: answer its questions (elicitation, form and URL; a
 * field left out gets its default), and await its tasks (the Tasks extension: the stdio call
 * path polls and cancels them itself, and the task relay does under the SDK's client, which
 * does not).
 */
export const CLIENT_CAPABILITIES: ClientCapabilities = {
  elicitation: { form: { applyDefaults: true }, url: {} },
  extensions: { [TASKS_EXTENSION]: {} },
};

/** A live connection, its protocol era settled. */
export interface UpstreamConnection {
  client: Client;
  /** The transport in use; "sse" also when "auto" fell back to it. */
  via: "stdio" | "streamable-http" | "sse";
  /** The protocol era: "modern" (2026-07-28, no session) or "legacy" (2025, `initialize`). */
  era: "modern" | "legacy";
  /** The server's `server/discover` answer (modern era), to keep for the next connect. */
  discover: DiscoverResult | undefined;
  /** Whether the era came from a kept verdict rather than from asking the server now. */
  fromPrior: boolean;
  /** Which call a question the server asks belongs to. */
  questions: CallQuestions;
  /**
   * Opens the client that carries the server's change streams, when it is not `client`
   * (streamable HTTP in the 2026-07-28 era); absent: `client` carries them.
   */
  listenVia?: () => Promise<Client>;
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
  /**
   * Called with the client before it connects, to install notification and request handlers;
   * `questions` tells which call a question of the server belongs to.
   */
  setup?: (client: Client, questions: CallQuestions) => void;
  /** Called with a change-stream client (see `listenVia`) before it connects, and the main one. */
  setupListener?: (listener: Client, main: Client) => void;
  /** Grace after closing stdin and after SIGTERM. @default 2000 */
  killGraceMs?: number;
  /** Told the pid of a stdio child once spawned (the process ledger). */
  onSpawn?: (pid: number) => void;
  /** OAuth for an HTTP server that asks for it; absent = no authorization. */
  oauth?: UpstreamOAuthProvider;
  /** A kept era verdict: adopted without asking the server. */
  prior?: PriorDiscovery;
  /**
   * How long a stdio server may leave `server/discover` unanswered before it counts as a 2025
   * server (some never answer requests they do not know). @default 5000
   */
  probeTimeoutMs?: number;
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
    try {
      return await viaStdio(name, config, options, options.prior);
    } catch (error) {
      // Some servers end at a request they do not know before `initialize` (rmcp's do): one
      // that exits at the probe is a 2025 server, started again for the 2025 handshake.
      if (
        options.prior !== undefined || options.signal.aborted ||
        !(error instanceof StdioStartError && error.exitedAtProbe)
      ) {
        throw error;
      }
      options.logger.info(
        `MCP server "${name}" exited at server/discover: starting it again for initialize`,
      );
      const connection = await viaStdio(name, config, options, { kind: "legacy" });
      return { ...connection, fromPrior: false };
    }
  }
  const url = new URL(config.url);
  const requestInit: RequestInit = { headers: config.headers };
  const auth = options.oauth ? { authProvider: options.oauth, fetch: options.oauth.fetch } : {};
  const viaStreamable = async (): Promise<UpstreamConnection> => {
    const transport = new StreamableHTTPClientTransport(url, {
      requestInit,
      ...auth,
      // A call that needs a wider scope fails on its own (`gateway auth login` widens the
      // grant): the server never sends anyone to a browser.
      onInsufficientScope: "throw",
    });
    const questions = new CallQuestions();
    const client = await handshake(transport, options, options.prior, questions);
    let listener: Client | undefined;
    let listenerPool: Deno.HttpClient | undefined;
    return {
      ...settled(client, options.prior, questions),
      via: "streamable-http",
      // Change streams ride a client of their own, adopting the same discover answer (no round
      // trip), on connections of their own: while a stream held a pooled connection, aborting a
      // timed-out call's fetch left its connection open, and the server never saw the cancel.
      listenVia: async () => {
        const discover = client.getDiscoverResult();
        if (discover === undefined) throw new Error("the connection is not in the 2026-07-28 era");
        const second = new Client(CLIENT_INFO, { capabilities: CLIENT_CAPABILITIES });
        options.setupListener?.(second, client);
        listenerPool = Deno.createHttpClient({});
        const pool = listenerPool;
        const viaPool = options.oauth?.fetch ?? fetch;
        await second.connect(
          new StreamableHTTPClientTransport(url, {
            requestInit,
            ...(options.oauth ? { authProvider: options.oauth } : {}),
            fetch: (input, init) => viaPool(input, { ...init, client: pool } as RequestInit),
            onInsufficientScope: "throw",
          }),
          { prior: { kind: "modern", discover } },
        );
        listener = second;
        return second;
      },
      close: async () => {
        await listener?.close().catch(() => {});
        listenerPool?.close();
        await transport.terminateSession().catch(() => {});
        await client.close();
      },
    };
  };
  const viaSse = async (): Promise<UpstreamConnection> => {
    // The old HTTP+SSE transport predates the 2026-07-28 era: no server behind it speaks it.
    const questions = new CallQuestions();
    const legacy = { kind: "legacy" } as const;
    const transport = new SSEClientTransport(url, { requestInit, ...auth });
    const client = await handshake(transport, options, legacy, questions);
    return { ...settled(client, legacy, questions), via: "sse", close: () => client.close() };
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

/** A stdio server that could not be connected to; says whether it exited at the era probe. */
class StdioStartError extends Error {
  readonly exitedAtProbe: boolean;

  constructor(message: string, exitedAtProbe: boolean, cause: unknown) {
    super(message, { cause });
    this.name = "StdioStartError";
    this.exitedAtProbe = exitedAtProbe;
  }
}

/** Starts the stdio server of `config` and connects to it (`prior`: a kept era verdict). */
async function viaStdio(
  name: string,
  config: Extract<McpServerConfig, { command: string }>,
  options: ConnectUpstreamOptions,
  prior: PriorDiscovery | undefined,
): Promise<UpstreamConnection> {
  const process = new StdioProcessTransport({
    command: config.command,
    args: config.args,
    env: { ...inheritedEnvironment(), ...config.env },
    ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
    stderr: options.stderr,
    onStderrLine: (line) => options.logger.debug(`[${name} stderr] ${line}`),
    ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
    ...(options.onSpawn ? { onSpawn: options.onSpawn } : {}),
  });
  options.logger.info(
    `Starting MCP server "${name}": ${[config.command, ...config.args].join(" ")}`,
  );
  const questions = new CallQuestions(() => process.toolCalls.answerers());
  // What goes wrong on the pipe before the client takes it over (the era probe runs on the
  // bare transport) is logged here; the client's own error handler reports it afterwards.
  let connected = false;
  process.onerror = (error) => {
    if (!connected) options.logger.warn(`MCP server "${name}": ${error.message}`);
  };
  try {
    const client = await handshake(process, options, prior, questions);
    connected = true;
    return {
      ...settled(client, prior, questions),
      via: "stdio",
      process,
      close: () => client.close(),
    };
  } catch (error) {
    const status = process.exitStatus;
    if (status === undefined || options.signal.aborted) throw error;
    const atProbe = prior === undefined && error instanceof SdkError &&
      error.code === SdkErrorCode.EraNegotiationFailed;
    throw new StdioStartError(`${describeExit(status)} during ${startStep(prior)}`, atProbe, error);
  }
}

/** The era a connected client settled on, and whether a kept verdict decided it. */
function settled(client: Client, prior: PriorDiscovery | undefined, questions: CallQuestions) {
  const era = client.getProtocolEra() === "modern" ? "modern" as const : "legacy" as const;
  const discover = client.getDiscoverResult();
  return { client, era, discover, fromPrior: prior !== undefined, questions };
}

/** What connecting does first, for messages: the probe, `initialize`, or nothing at all. */
function startStep(prior: PriorDiscovery | undefined): string {
  return prior === undefined
    ? "server/discover or initialize"
    : prior.kind === "legacy"
    ? "initialize"
    : "start-up";
}

async function handshake(
  transport: Transport,
  options: ConnectUpstreamOptions,
  prior: PriorDiscovery | undefined,
  questions: CallQuestions,
): Promise<Client> {
  options.signal.throwIfAborted();
  if (options.protocolLog) tapTransport(transport, options.protocolLog);
  const stdio = transport instanceof StdioProcessTransport;
  relayTasks(transport, {
    envelope: () =>
      client.getProtocolEra() === "modern"
        ? {
          [ENVELOPE_KEYS.protocolVersion]: client.getNegotiatedProtocolVersion(),
          [ENVELOPE_KEYS.clientInfo]: CLIENT_INFO,
          [ENVELOPE_KEYS.clientCapabilities]: CLIENT_CAPABILITIES,
        }
        : undefined,
    answerer: () => {
      const call = questions.current();
      return typeof call === "object" ? call.answer : undefined;
    },
    onError: (message) => options.logger.warn(message),
  });
  const client: Client = new Client(CLIENT_INFO, {
    capabilities: CLIENT_CAPABILITIES,
    versionNegotiation: {
      mode: "auto",
      ...(stdio ? { probe: { timeoutMs: options.probeTimeoutMs ?? 5000 } } : {}),
    },
  });
  options.setup?.(client, questions);
  const abort = () => void client.close().catch(() => {});
  options.signal.addEventListener("abort", abort, { once: true });
  try {
    // The attempt's own deadline is the signal; the SDK's default 60 s must not cut in first.
    await client.connect(transport, {
      signal: options.signal,
      timeout: 2 ** 31 - 1,
      ...(prior === undefined ? {} : { prior }),
    });
    return client;
  } catch (error) {
    await client.close().catch(() => {});
    await transport.close().catch(() => {});
    throw error;
  } finally {
    options.signal.removeEventListener("abort", abort);
  }
}
