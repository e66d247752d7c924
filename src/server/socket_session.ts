/**
 * One WebSocket connection speaking JSON-RPC 2.0. Every bad frame gets an error
 * reply and the connection lives on; lootbox's message shapes are
 * accepted for migration.
 * @module
 */

import {
  jsonDepthExceeds,
  RpcCode,
  RpcError,
  rpcError,
  type RpcId,
  rpcResult,
} from "../protocol/json_rpc.ts";
import type { RunDocument } from "../protocol/run_document.ts";
import type { GatewayCore } from "./gateway_core.ts";
import type { Router } from "./router.ts";

/** Largest text frame accepted; larger ones close the connection with 1009. */
export const MAX_FRAME_BYTES = 10 * 1024 * 1024;

/** A normalised request, whatever shape it arrived in. */
interface Incoming {
  id: RpcId | undefined;
  method: string;
  params: unknown;
  /** lootbox clients expect `{id, result}`/`{id, error}` without `jsonrpc`. */
  lootbox: boolean;
}

function validId(id: unknown): id is RpcId {
  return id === null || typeof id === "string" || (typeof id === "number" && Number.isFinite(id));
}

/** Reads a parsed message as a request, or returns the error to answer with. */
export function normaliseMessage(message: unknown): Incoming | { error: RpcError; id: RpcId } {
  if (Array.isArray(message)) {
    return {
      error: new RpcError(
        RpcCode.InvalidRequest,
        "Batch requests are not supported: send one request per message",
      ),
      id: null,
    };
  }
  if (message === null || typeof message !== "object") {
    return {
      error: new RpcError(RpcCode.InvalidRequest, "Invalid request: expected a JSON object"),
      id: null,
    };
  }
  const record = message as Record<string, unknown>;
  const id = validId(record.id) ? record.id : null;
  if (record.jsonrpc === undefined) {
    // lootbox: {script, id} runs a script; {method: "ns.fn", args, id} calls a tool.
    if (typeof record.script === "string") {
      return { id, method: "exec", params: { source: record.script }, lootbox: true };
    }
    if (typeof record.method === "string" && record.method.includes(".")) {
      const [namespace, ...rest] = record.method.split(".");
      return {
        id,
        method: "call",
        params: { namespace, tool: rest.join("."), args: record.args ?? {} },
        lootbox: true,
      };
    }
  }
  if (record.jsonrpc !== "2.0") {
    return {
      error: new RpcError(RpcCode.InvalidRequest, 'Invalid request: "jsonrpc" must be "2.0"'),
      id,
    };
  }
  if (typeof record.method !== "string") {
    return {
      error: new RpcError(RpcCode.InvalidRequest, 'Invalid request: "method" must be a string'),
      id,
    };
  }
  if ("id" in record && !validId(record.id)) {
    return {
      error: new RpcError(
        RpcCode.InvalidRequest,
        'Invalid request: "id" must be a string, number or null',
      ),
      id: null,
    };
  }
  return {
    id: "id" in record ? (record.id as RpcId) : undefined,
    method: record.method,
    params: record.params,
    lootbox: false,
  };
}

/**
 * Shapes an answer the way lootbox clients read it: a tool call's value itself, and a script's
 * output text (stdout, then the result as the CLI prints it) or its error as a string.
 */
export function lootboxAnswer(
  method: string,
  result: unknown,
): { result: unknown } | { error: string } {
  if (method === "call") return { result: (result as { value?: unknown } | null)?.value };
  const run = result as Partial<RunDocument> | null;
  if (method !== "exec" || run === null || typeof run !== "object" || run.ok === undefined) {
    return { result };
  }
  if (!run.ok) {
    return {
      error: `${run.error?.kind ?? "ScriptError"}: ${run.error?.message ?? "the script failed"}`,
    };
  }
  const value = run.result === undefined
    ? ""
    : `${typeof run.result === "string" ? run.result : JSON.stringify(run.result)}\n`;
  return { result: `${run.stdout ?? ""}${value}` };
}

/** Serves one upgraded socket until it closes. */
export function serveSocket(
  socket: WebSocket,
  options: { core: GatewayCore; router: Router },
): void {
  const { core, router } = options;
  const gone = new AbortController();
  const send = (payload: unknown) => {
    if (socket.readyState !== WebSocket.OPEN) return;
    try {
      socket.send(core.outgoingMask.stringify(payload));
    } catch (error) {
      core.log.warn("websocket send failed", { error: String(error) });
    }
  };
  const notify = (method: string, params: unknown) => send({ jsonrpc: "2.0", method, params });

  socket.onclose = () => gone.abort();
  socket.onerror = () => gone.abort();
  socket.onmessage = (event: MessageEvent) => {
    if (typeof event.data !== "string") {
      send(
        rpcError(
          null,
          new RpcError(RpcCode.InvalidRequest, "Binary frames are not supported: send JSON text")
            .toJSON(),
        ),
      );
      return;
    }
    const text = event.data;
    if (text.length > MAX_FRAME_BYTES) {
      socket.close(1009, "message too big");
      return;
    }
    if (jsonDepthExceeds(text)) {
      send(
        rpcError(
          null,
          new RpcError(RpcCode.InvalidRequest, "Invalid request: JSON nested too deeply").toJSON(),
        ),
      );
      return;
    }
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch (error) {
      send(
        rpcError(
          null,
          new RpcError(RpcCode.ParseError, `Parse error: ${(error as Error).message}`).toJSON(),
        ),
      );
      return;
    }
    const incoming = normaliseMessage(message);
    if ("error" in incoming) {
      send(rpcError(incoming.id, incoming.error.toJSON()));
      return;
    }
    const isNotification = incoming.id === undefined;
    if (isNotification && !router.has(incoming.method)) return;
    router.dispatch(incoming.method, incoming.params, {
      client: "ws",
      notify,
      signal: gone.signal,
    }).then(
      (result) => {
        if (isNotification) return;
        send(
          incoming.lootbox
            ? { id: incoming.id, ...lootboxAnswer(incoming.method, result) }
            : rpcResult(incoming.id ?? null, result),
        );
      },
      (error: RpcError) => {
        if (isNotification) return;
        send(
          incoming.lootbox
            ? { id: incoming.id, error: error.message }
            : rpcError(incoming.id ?? null, error.toJSON()),
        );
      },
    );
  };
}
