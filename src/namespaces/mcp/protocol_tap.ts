/**
 * The tap behind the dashboard's protocol log: wraps an MCP SDK `Transport`'s `send` and
 * `onmessage` so every JSON-RPC message to and from the upstream is also told to a
 * {@linkcode ProtocolLog}. It only reads the `Transport` shape (the same in the SDK's v1 and
 * v2), so it works on any transport the connection picks.
 * @module
 */

import type { JSONRPCMessage, Transport } from "./mcp_sdk.ts";
import type { ProtocolLog } from "./protocol_log.ts";

/**
 * The stdio transport's side door: `tools/call` requests and their answers travel by
 * `sendLine` and `toolCalls.take` without passing `send` or `onmessage`.
 */
interface LineTransport {
  sendLine(
    message: JSONRPCMessage,
    onFailed: (error: Error) => void,
    onWritten?: () => void,
  ): void;
  toolCalls: { take(value: unknown): boolean };
}

function isLineTransport(transport: object): transport is LineTransport {
  const candidate = transport as Partial<LineTransport>;
  return typeof candidate.sendLine === "function" &&
    typeof candidate.toolCalls?.take === "function";
}

type OnMessage = Transport["onmessage"];

/**
 * Makes `transport` tell `log` every message it sends and delivers. Call it once, before the
 * client connects: the handler the SDK installs then is wrapped as it is set.
 */
export function tapTransport(transport: Transport, log: ProtocolLog): void {
  if (isLineTransport(transport)) {
    // `send` writes through `sendLine` too, so wrapping it alone sees every message once.
    const sendLine = transport.sendLine.bind(transport);
    transport.sendLine = (message, onFailed, onWritten) => {
      log.record("sent", message);
      sendLine(message, onFailed, onWritten);
    };
    const toolCalls = transport.toolCalls;
    const take = toolCalls.take.bind(toolCalls);
    toolCalls.take = (value) => {
      const taken = take(value);
      if (taken) log.record("received", value);
      return taken;
    };
  } else {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      log.record("sent", message);
      return send(message, options);
    };
  }
  const current = transport.onmessage;
  let tapped: OnMessage = current === undefined ? undefined : wrap(current, log);
  Object.defineProperty(transport, "onmessage", {
    configurable: true,
    enumerable: true,
    get: () => tapped,
    set: (next: OnMessage) => {
      tapped = next === undefined ? undefined : wrap(next, log);
    },
  });
}

function wrap(handler: NonNullable<OnMessage>, log: ProtocolLog): NonNullable<OnMessage> {
  return ((message, extra) => {
    log.record("received", message);
    handler(message, extra);
  }) as NonNullable<OnMessage>;
}
