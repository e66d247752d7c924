/**
 * The answer to one `POST /rpc`: the request's notifications, each a JSON line as it happens,
 * then its response line. The stream ends there, except for a subscription, which stays open,
 * carrying its notifications, until the client closes it. A client that goes away aborts the
 * request: a run it started is cancelled, as when a WebSocket closes. The request is served by
 * a `MessagePeer` on the answer's stream (the client's side is a peer too).
 * @module
 */

import { RpcCode, RpcError, type RpcId } from "../protocol/json_rpc.ts";
import { messageOf } from "../protocol/message_of.ts";
import { MessagePeer } from "../protocol/message_peer.ts";
import {
  InboxBuffer,
  type Transport,
  type TransportEvents,
  type WireMessage,
} from "../protocol/transport.ts";
import type { GatewayCore } from "./gateway_core.ts";
import type { Router } from "./router.ts";

/** Methods whose answer opens a subscription: their stream stays open after the response. */
const SUBSCRIPTIONS: ReadonlySet<string> = new Set(["events.subscribe"]);

/**
 * One request's wire on the server: the request came whole with the HTTP request; what is sent
 * back is a line of the answer's body; the client going away closes it.
 */
class AnswerStream implements Transport {
  readonly body: ReadableStream<Uint8Array>;
  readonly #inbox = new InboxBuffer();
  readonly #stringify: (message: WireMessage) => string;
  readonly #encoder = new TextEncoder();
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #open = true;

  constructor(request: WireMessage, stringify: (message: WireMessage) => string) {
    this.#stringify = stringify;
    this.body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
      },
      cancel: () => this.#end("the client went away"),
    });
    this.#inbox.message(request);
  }

  start(events: TransportEvents): void {
    this.#inbox.start(events);
  }

  send(message: WireMessage): void {
    const line = `${this.#stringify(message)}\n`;
    if (!this.#open) return;
    try {
      this.#controller.enqueue(this.#encoder.encode(line));
    } catch {
      this.#end("the client went away"); // it went away meanwhile
    }
  }

  close(reason = "answered"): void {
    if (!this.#open) return;
    try {
      this.#controller.close();
    } catch {
      // cancelled already
    }
    this.#end(reason);
  }

  flushed(): Promise<void> {
    return Promise.resolve();
  }

  #end(reason: string): void {
    if (!this.#open) return;
    this.#open = false;
    this.#inbox.close(reason);
  }
}

/** Dispatches `request` and answers it as a stream of JSON lines. */
export function rpcStream(
  deps: {
    core: GatewayCore;
    router: Router;
    /** Recorded as the caller ("cli" on the socket, "http" on the port). */
    client: string;
    /** Aborted when the client goes away. */
    signal: AbortSignal;
  },
  request: { id: RpcId; method: string; params: unknown },
): Response {
  const { core, router } = deps;
  const stream = new AnswerStream(
    { jsonrpc: "2.0", id: request.id, method: request.method, params: request.params },
    (message) => core.outgoingMask.stringify(message),
  );
  const peer = new MessagePeer(stream, { jsonRpc: true });
  // Aborted when the answer's stream ends before the client took it all, or a subscription's
  // client goes away (an answered request's own signal no longer hears of that).
  const gone = new AbortController();
  peer.onClose((reason) => {
    if (reason !== "answered") gone.abort();
  });
  deps.signal.addEventListener("abort", () => stream.close("the client went away"), {
    once: true,
  });
  peer.serve(request.method, (params, incoming) => {
    router.dispatch(request.method, params, {
      client: deps.client,
      notify: (method, notification) => peer.notify(method, notification),
      signal: gone.signal,
    }).then(
      (result) => {
        try {
          incoming.reply(result);
        } catch (error) {
          incoming.fail(
            new RpcError(RpcCode.InternalError, `The answer cannot be sent: ${messageOf(error)}`),
          );
        }
        if (!SUBSCRIPTIONS.has(request.method)) stream.close();
      },
      (error) => {
        incoming.fail(error);
        stream.close();
      },
    );
  });
  return new Response(stream.body, {
    headers: {
      "content-type": "application/x-ndjson; charset=UTF-8",
      "cache-control": "no-store",
    },
  });
}
