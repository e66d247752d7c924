/**
 * How a gateway client reads the JSON-RPC messages the server sends, written once for the
 * WebSocket client (`gateway_client.ts`, one message per frame) and the CLI's client
 * (`gateway_http_client.ts`, one message per line of a `/rpc` answer): a notification goes to
 * every listener, an answer settles the request with its id.
 * @module
 */

import { RpcError, type RpcErrorObject } from "../protocol/json_rpc.ts";

/** A notification the server pushed (`run.output`, `run.progress`). */
export interface ServerNotification {
  method: string;
  params: unknown;
}

/** Requests sent and not answered yet, by JSON-RPC id. */
export type PendingRequests = Map<
  number,
  { resolve: (v: unknown) => void; reject: (e: Error) => void }
>;

/**
 * Hands one text frame to its listeners or its pending request. A frame that is not JSON, or
 * answers no pending id, is dropped: the server sends only JSON-RPC, and an answer can arrive
 * after its request gave up.
 */
export function receiveRpcText(
  data: string,
  pending: PendingRequests,
  listeners: Iterable<(n: ServerNotification) => void>,
): void {
  let message: Record<string, unknown>;
  try {
    message = JSON.parse(data);
  } catch {
    return;
  }
  if (typeof message.method === "string" && message.id === undefined) {
    for (const l of listeners) l({ method: message.method, params: message.params });
    return;
  }
  const id = typeof message.id === "number" ? message.id : null;
  const waiting = id === null ? undefined : pending.get(id);
  if (!waiting || id === null) return;
  pending.delete(id);
  if (message.error) {
    const error = message.error as RpcErrorObject;
    waiting.reject(new RpcError(error.code, error.message, error.data));
  } else waiting.resolve(message.result);
}
