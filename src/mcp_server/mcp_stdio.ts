/**
 * The gateway's MCP server on stdin/stdout (`gateway mcp`), in both protocol eras through the
 * SDK's `serveStdio`: the opening message picks the era (`initialize` for a 2025 client, an
 * enveloped request for a 2026-07-28 one) and one instance serves the connection, following the
 * gateway's events — unsolicited notifications for a 2025 client, its `subscriptions/listen`
 * stream for a modern one.
 * @module
 */

import type { JSONRPCMessage, Transport, TransportSendOptions } from "@modelcontextprotocol/server";
import { serveStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { createGatewayMcpServer, type GatewayMcpServerOptions } from "./gateway_mcp_server.ts";

/**
 * The process's stdio as the SDK's transport, telling when the client closed it: the entry
 * owns the transport and sets its callbacks, so the end is observed underneath them.
 */
class ObservedStdio implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly closed: Promise<void>;
  readonly #inner = new StdioServerTransport();
  #ended!: () => void;

  constructor() {
    this.closed = new Promise((resolve) => (this.#ended = resolve));
    this.#inner.onmessage = (message) => this.onmessage?.(message);
    this.#inner.onerror = (error) => this.onerror?.(error);
    this.#inner.onclose = () => {
      this.onclose?.();
      this.#ended();
    };
  }

  start(): Promise<void> {
    return this.#inner.start();
  }

  send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
    return this.#inner.send(message);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}

/** Serves `options.surface` on stdio until the client closes its end. */
export async function serveMcpOnStdio(options: GatewayMcpServerOptions): Promise<void> {
  const transport = new ObservedStdio();
  const listChanged = options.events !== undefined;
  const handle = serveStdio(
    ({ era }) => createGatewayMcpServer(options, era, listChanged).server,
    {
      transport,
      onerror: (error) => options.onError?.(error.message),
    },
  );
  await transport.closed;
  await handle.close();
}
