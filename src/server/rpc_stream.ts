/**
 * The answer to one `POST /rpc`: the request's notifications, each a JSON line as it happens,
 * then its response line. The stream ends there, except for a subscription, which stays open,
 * carrying its notifications, until the client closes it. A client that goes away aborts the
 * request: a run it started is cancelled, as when a WebSocket closes.
 * @module
 */

import { type RpcError, rpcError, type RpcId, rpcResult } from "../protocol/json_rpc.ts";
import type { GatewayCore } from "./gateway_core.ts";
import type { Router } from "./router.ts";

/** Methods whose answer opens a subscription: their stream stays open after the response. */
const SUBSCRIPTIONS: ReadonlySet<string> = new Set(["events.subscribe"]);

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
  const encoder = new TextEncoder();
  const gone = new AbortController();
  deps.signal.addEventListener("abort", () => gone.abort(), { once: true });
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let open = true;
  const stream = new ReadableStream<Uint8Array>({
    start: (ctrl) => {
      controller = ctrl;
    },
    cancel: () => {
      open = false;
      gone.abort();
    },
  });
  const write = (payload: unknown) => {
    if (!open) return;
    try {
      controller.enqueue(encoder.encode(`${core.outgoingMask.stringify(payload)}\n`));
    } catch {
      open = false; // the client went away meanwhile
    }
  };
  const end = () => {
    if (!open) return;
    open = false;
    try {
      controller.close();
    } catch {
      // cancelled already
    }
  };
  router.dispatch(request.method, request.params, {
    core,
    client: deps.client,
    notify: (method, params) => write({ jsonrpc: "2.0", method, params }),
    signal: gone.signal,
  }).then(
    (result) => {
      write(rpcResult(request.id, result));
      if (!SUBSCRIPTIONS.has(request.method)) end();
    },
    (error: RpcError) => {
      write(rpcError(request.id, error.toJSON()));
      end();
    },
  );
  return new Response(stream, {
    headers: {
      "content-type": "application/x-ndjson; charset=UTF-8",
      "cache-control": "no-store",
    },
  });
}
