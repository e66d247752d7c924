/**
 * Tasks (the `io.modelcontextprotocol/tasks` extension) under the SDK's client: a server may
 * answer a `tools/call` with a task instead of its result, which `Client.callTool` refuses as
 * an unsupported result type, and the client sends no `tasks/*` requests of its own. So the
 * relay sits on the connection's transport: it takes a task answer off the wire before the
 * client sees it, follows the task with `tasks/get` requests of its own (answered off the wire
 * too), tells the client each status as progress of its call (which keeps the call's silence
 * timeout from firing while the task works), answers a task's questions through the call's
 * answerer (`tasks/update`), and hands the client the task's outcome as the answer to its
 * original request. When the client gives up on the call (its signal, timeout or maximum: the
 * request's stream is aborted, or `notifications/cancelled` names it) the task is cancelled
 * with `tasks/cancel`, also when the answer that makes it a task comes only after that. The
 * client keeps doing what it does for every call: timeouts, progress, result validation, output
 * schemas.
 * @module
 */

import type { JSONRPCMessage, Transport, TransportSendOptions } from "./mcp_sdk.ts";
import type { AnswerInput } from "./upstream_question.ts";

/** Prefix of the ids of the relay's own requests. */
const ID_PREFIX = "gw-task-";

/**
 * Calls given up on before their answer came, remembered so that a task their answer turns out
 * to be is cancelled; the oldest is forgotten past this many (a server may never answer one).
 */
const MAX_ABANDONED = 1024;

/** A task's poll interval when the server suggests none, and the bounds put on a suggestion. */
const POLL_MS = { default: 500, min: 50, max: 5000 };

/** What the relay needs from the connection. */
export interface TaskRelayOptions {
  /** The `_meta` envelope of the relay's requests (2026-07-28), or undefined (2025). */
  envelope: () => Record<string, unknown> | undefined;
  /** The answerer of the call being sent now (read when a `tools/call` goes out). */
  answerer: () => AnswerInput | undefined;
  /** Told what went wrong following a task (a failed poll is also the call's answer). */
  onError: (message: string) => void;
}

/** A `tools/call` the client sent, until its answer arrives. */
interface SentCall {
  progressToken: string | number | undefined;
  answer: AnswerInput | undefined;
  startedAt: number;
  /** Set once the answer was a task. */
  taskId?: string;
  stopped?: boolean;
  timer?: ReturnType<typeof setTimeout>;
}

type OnMessage = NonNullable<Transport["onmessage"]>;

/** Installs the relay on `transport`; call it before the client connects. */
export function relayTasks(transport: Transport, options: TaskRelayOptions): void {
  const calls = new Map<string | number, SentCall>();
  /** Calls the client gave up on before their answer: a task answer to one is cancelled. */
  const abandoned = new Set<string | number>();
  const abandon = (id: string | number) => {
    abandoned.add(id);
    if (abandoned.size > MAX_ABANDONED) abandoned.delete(abandoned.values().next().value!);
  };
  const own = new Map<string, (message: Record<string, unknown>) => void>();
  let next = 1;
  let deliver: OnMessage | undefined;
  const send = transport.send.bind(transport);

  /** Sends a request of the relay's own; `then` gets its answer (a response message). */
  const request = (
    method: string,
    params: Record<string, unknown>,
    then: (response: Record<string, unknown>) => void,
  ): void => {
    const id = `${ID_PREFIX}${next++}`;
    own.set(id, then);
    const envelope = options.envelope();
    send({
      jsonrpc: "2.0",
      id,
      method,
      params: envelope === undefined ? params : { ...params, _meta: envelope },
    } as JSONRPCMessage).catch((error) => {
      own.delete(id);
      then({ error: { code: -32603, message: `${method} could not be sent: ${String(error)}` } });
    });
  };

  /** Hands the client the final answer to its call `id`. */
  const settle = (id: string | number, answer: { result: unknown } | { error: unknown }) => {
    const call = calls.get(id);
    if (call === undefined || call.stopped) return;
    call.stopped = true;
    clearTimeout(call.timer);
    calls.delete(id);
    deliver?.({ jsonrpc: "2.0", id, ...answer } as JSONRPCMessage);
  };

  /** The client gave up on call `id`: the task is cancelled, its polls stop. */
  const stop = (id: string | number) => {
    const call = calls.get(id);
    if (call === undefined) return;
    calls.delete(id);
    call.stopped = true;
    clearTimeout(call.timer);
    if (call.taskId !== undefined) {
      request("tasks/cancel", { taskId: call.taskId }, () => {});
    } else abandon(id);
  };

  const onTask = (id: string | number, call: SentCall, task: Record<string, unknown>) => {
    if (call.stopped) return;
    const status = task.status;
    const message = typeof task.statusMessage === "string" ? task.statusMessage : undefined;
    if (call.progressToken !== undefined) {
      deliver?.({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: {
          progressToken: call.progressToken,
          progress: Date.now() - call.startedAt,
          message: message ?? `task ${String(status)}`,
        },
      } as JSONRPCMessage);
    }
    switch (status) {
      case "completed":
        settle(id, {
          result: isRecord(task.result) ? { ...task.result, resultType: "complete" } : task.result,
        });
        return;
      case "failed":
        settle(id, {
          error: isRecord(task.error)
            ? task.error
            : { code: -32603, message: message ?? "The task failed" },
        });
        return;
      case "cancelled":
        settle(id, {
          error: {
            code: -32603,
            message: `The server cancelled the task${message === undefined ? "" : `: ${message}`}`,
          },
        });
        return;
      case "input_required": {
        const requests = isRecord(task.inputRequests) ? task.inputRequests : {};
        if (call.answer === undefined) {
          stop(id);
          settle(id, {
            error: { code: -32603, message: "The task asks for input, and nobody can be asked" },
          });
          return;
        }
        call.answer(requests).then((inputResponses) => {
          if (call.stopped) return;
          request("tasks/update", { taskId: call.taskId, inputResponses }, (response) => {
            if ("error" in response) {
              stop(id);
              settle(id, { error: response.error });
            } else poll(id, call, undefined);
          });
        }, (error) => {
          stop(id);
          settle(id, { error: { code: -32603, message: `Cannot answer the task: ${error}` } });
        });
        return;
      }
      default:
        poll(id, call, task.pollIntervalMs);
    }
  };

  const poll = (id: string | number, call: SentCall, suggested: unknown) => {
    const interval = typeof suggested === "number" && Number.isFinite(suggested)
      ? Math.min(POLL_MS.max, Math.max(POLL_MS.min, suggested))
      : POLL_MS.default;
    call.timer = setTimeout(() => {
      if (call.stopped) return;
      request("tasks/get", { taskId: call.taskId }, (response) => {
        if ("error" in response) {
          options.onError(`tasks/get of task "${call.taskId}" failed`);
          settle(id, { error: response.error });
          return;
        }
        const task = response.result;
        if (!isRecord(task)) {
          settle(id, { error: { code: -32603, message: "Invalid result for tasks/get" } });
          return;
        }
        onTask(id, call, task);
      });
    }, interval);
  };

  transport.send = (message: JSONRPCMessage, sendOptions?: TransportSendOptions) => {
    const record = message as Record<string, unknown>;
    const params = isRecord(record.params) ? record.params : {};
    if (record.method === "tools/call" && record.id !== undefined) {
      const id = record.id as string | number;
      const token = isRecord(params._meta) ? params._meta.progressToken : undefined;
      calls.set(id, {
        progressToken: typeof token === "string" || typeof token === "number" ? token : undefined,
        answer: options.answerer(),
        startedAt: Date.now(),
      });
      // The client cancels a call on a 2026-07-28 stream by aborting the request's stream.
      const signal = (sendOptions as { requestSignal?: AbortSignal } | undefined)?.requestSignal;
      signal?.addEventListener("abort", () => stop(id), { once: true });
    } else if (record.method === "notifications/cancelled") {
      const id = params.requestId as string | number | undefined;
      const call = id === undefined ? undefined : calls.get(id);
      if (call?.taskId !== undefined) {
        // The server finished answering this request: the task is what must stop.
        stop(id!);
        return Promise.resolve();
      }
      if (id !== undefined && calls.delete(id)) abandon(id);
    }
    return send(message, sendOptions);
  };

  const wrap = (handler: OnMessage): OnMessage =>
    ((message, extra) => {
      const record = message as Record<string, unknown>;
      const id = record.id;
      if (id !== undefined && !("method" in record)) {
        if (typeof id === "string" && own.has(id)) {
          const then = own.get(id)!;
          own.delete(id);
          then(record);
          return;
        }
        const call = calls.get(id as string | number);
        if (call !== undefined) {
          const result = record.result;
          if (
            isRecord(result) && result.resultType === "task" && typeof result.taskId === "string"
          ) {
            call.taskId = result.taskId;
            onTask(id as string | number, call, result);
            return;
          }
          calls.delete(id as string | number);
        } else if (abandoned.delete(id as string | number)) {
          // Given up on before its answer came (its deadline passed while the server was
          // making the task): the task would work on for nobody.
          const result = record.result;
          if (
            isRecord(result) && result.resultType === "task" && typeof result.taskId === "string"
          ) {
            request("tasks/cancel", { taskId: result.taskId }, () => {});
          }
        }
      }
      handler(message, extra);
    }) as OnMessage;

  const previous = Object.getOwnPropertyDescriptor(transport, "onmessage");
  let plain: OnMessage | undefined = transport.onmessage;
  Object.defineProperty(transport, "onmessage", {
    configurable: true,
    enumerable: true,
    get: () => (previous?.get ? previous.get.call(transport) : plain),
    set: (handler: OnMessage | undefined) => {
      deliver = handler === undefined ? undefined : handler;
      const wrapped = handler === undefined ? undefined : wrap(handler);
      if (previous?.set) previous.set.call(transport, wrapped);
      else plain = wrapped;
    },
  });
  const onclose = () => {
    for (const call of calls.values()) {
      call.stopped = true;
      clearTimeout(call.timer);
    }
    calls.clear();
    abandoned.clear();
    own.clear();
  };
  const close = transport.close.bind(transport);
  transport.close = async () => {
    onclose();
    await close();
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
