/**
 * What one MCP connection remembers between requests: the protocol era and revision it speaks,
 * the log level it set, the resources it subscribed to, and the held calls its host was already
 * asked about. A 2025-era client keeps one session for its whole connection (stdio) or HTTP
 * session; a 2026-07-28 client is stateless, so over HTTP each request gets a fresh session and
 * over stdio the connection's one instance keeps it.
 * @module
 */

import type { Server } from "@modelcontextprotocol/server";
import { LATEST_LEGACY_REVISION } from "./content_for_revision.ts";
import { LOG_LEVELS, type LogLevel } from "../protocol/mcp_log_levels.ts";

/** The two protocol families: `legacy` (2024-10-07 … 2025-11-25) and `modern` (2026-07-28). */
export type ProtocolEra = "legacy" | "modern";

/** The per-connection state of the gateway's MCP server. */
export class McpSession {
  /** The SDK server instance serving this session. */
  readonly server: Server;
  /** Which protocol family the connection speaks. */
  readonly era: ProtocolEra;
  /** Resource URIs (as the client named them) the client subscribed to (2025 era). */
  readonly subscriptions: Set<string> = new Set();
  #logLevel: LogLevel | null = null;
  readonly #asked = new Set<string>();

  constructor(server: Server, era: ProtocolEra) {
    this.server = server;
    this.era = era;
  }

  /** The revision results are shaped for: the negotiated one, or the newest 2025 one before. */
  revision(): string {
    return this.server.getNegotiatedProtocolVersion() ?? LATEST_LEGACY_REVISION;
  }

  /** The level the client set with `logging/setLevel`, or null before it set one. */
  get logLevel(): LogLevel | null {
    return this.#logLevel;
  }

  /** Records `logging/setLevel`. */
  setLogLevel(level: LogLevel): void {
    this.#logLevel = level;
  }

  /** Whether a log message at `level` reaches this client (never before it set a level). */
  logs(level: LogLevel): boolean {
    return this.#logLevel !== null &&
      LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(this.#logLevel);
  }

  /**
   * Whether a message the client must see (a held call it cannot answer otherwise) passes its
   * level: always before it set one, as the SDK's own log filter does.
   */
  admits(level: LogLevel): boolean {
    return this.#logLevel === null || this.logs(level);
  }

  /** Whether the client asked for any log messages at all. */
  wantsLogs(): boolean {
    return this.#logLevel !== null;
  }

  /** True the first time a held call is named, so each is put to the host once. */
  firstAsk(approvalId: string): boolean {
    if (this.#asked.has(approvalId)) return false;
    this.#asked.add(approvalId);
    return true;
  }
}
