/**
 * `tools/call` over a stdio upstream without the SDK's request machinery: the SDK validates
 * every message it reads with zod several times over (message union, response guards, result
 * schema), which cost more than the upstream's whole answer. Requests carry ids of their own
 * (`"gw-N"`), so their answers and progress are taken off the line before the SDK sees it;
 * everything else still goes through the SDK. A call behaves as `Client.callTool` does:
 * the same timeouts, cancellation, errors and result validation, in both protocol eras. On a
 * 2026-07-28 connection each request carries the `_meta` envelope, and an answer is one of
 * three kinds: complete; `input_required` (the server asks the user something: the call's
 * {@linkcode StdioToolCallOptions.answer} gives the responses, and the call is sent again with
 * them, up to {@linkcode MAX_INPUT_ROUNDS} times); or a task (the Tasks extension: the call
 * polls `tasks/get` until the task ends, each status a sign of life, and cancels it with
 * `tasks/cancel` when the call times out or is cancelled). A call's request, its retries with
 * answers, its task polls and its deadline share one pending-call record, and every path ends
 * in the same settle, so they live in one module.
 * @module
 */

import {
  checkCallToolResult,
  type JSONRPCMessage,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
} from "./mcp_sdk.ts";
import { PendingRequests } from "../../protocol/pending_requests.ts";
import { type Clock, systemClock, type TimerId } from "../../protocol/clock.ts";
import {
  isPlainTextResult,
  isRecord,
  protocolError,
  resultKind,
  withoutResultType,
} from "./tool_call_results.ts";

/** What a call is told while it runs, as the SDK's `RequestOptions` word it. */
export interface StdioToolCallOptions {
  /** Aborting sends `notifications/cancelled` and rejects with the signal's reason. */
  signal: AbortSignal;
  /** No answer or progress for this long: cancelled, rejects with `RequestTimeout`. */
  timeout: number;
  /** Progress past this long since the start: cancelled, rejects with `RequestTimeout`. */
  maxTotalTimeout: number;
  /** Each progress notification for the call (a task's status changes count as progress). */
  onprogress?: (
    progress: { progress: number; total?: number | undefined; message?: string | undefined },
  ) => void;
  /**
   * The 2026-07-28 `_meta` envelope (protocol version, client info and capabilities); absent
   * on a 2025 connection.
   */
  envelope?: Record<string, unknown>;
  /**
   * Answers the input requests of an `input_required` answer or task: their responses by
   * key. While it runs the call's silence timeout is held (a person is deciding); the maximum
   * still applies. Absent: such an answer fails the call.
   */
  answer?: (inputRequests: Record<string, unknown>) => Promise<Record<string, unknown>>;
  /**
   * An `input_required` answer settles the call with that answer as it is (the caller puts the
   * requests to someone else and calls again), instead of going to `answer`.
   */
  handBack?: boolean;
  /** Top-level params of the request beyond the tool and its arguments (a retry's answers). */
  params?: Record<string, unknown>;
}

/** Prefix of the ids (and progress tokens) of the requests this module sends. */
const ID_PREFIX = "gw-";

/** How many `input_required` rounds one call may take (the SDK's client allows as many). */
export const MAX_INPUT_ROUNDS = 10;

/** A task's poll interval when the server suggests none, and the bounds put on a suggestion. */
const TASK_POLL_MS = { default: 500, min: 50, max: 5000 };

interface PendingCall {
  resolve(result: Record<string, unknown>): void;
  reject(error: unknown): void;
  options: StdioToolCallOptions;
  /** The tool call's params as first sent (a retry adds the input responses). */
  params: Record<string, unknown>;
  startedAt: number;
  /** When the call times out: its last sign of life plus `timeout`, at most the maximum. */
  deadline: number;
  /** The calls in flight under the same signal (this call among them). */
  sharing: Set<string>;
  /** The ids on the wire that answer for this call (the request, its retries, task polls). */
  wireIds: Set<string>;
  /** `input_required` rounds taken. */
  rounds: number;
  /** The task the server made of the call, once it made one. */
  taskId?: string;
  /** A person is being asked: no silence timeout until they answer. */
  waitingForInput: boolean;
  /** Timer of the next task poll. */
  pollTimer?: TimerId;
}

/** Where a response to an id on the wire goes. */
type WireEntry = { call: string; kind: "call" | "poll" | "update" } | { kind: "ignore" };

/** The `tools/call` requests of one stdio connection; see the module doc. */
export class StdioToolCalls {
  readonly #send: (message: JSONRPCMessage, onFailed: (error: unknown) => void) => void;
  /** Calls in flight by key (the first request's id, also the progress token). */
  readonly #pending = new PendingRequests<PendingCall>();
  readonly #wire = new PendingRequests<WireEntry>();
  #next = 1;
  #closed = false;
  /** One timer for all calls, at the earliest deadline (a timer per call costs a fast call). */
  #sweep: TimerId | undefined;
  #sweepAt = Infinity;
  readonly #bySignal = new WeakMap<AbortSignal, Set<string>>();

  readonly #clock: Clock;

  /**
   * `send` writes one message to the upstream (the transport's `sendLine`) and tells
   * `onFailed` when it cannot; `clock` keeps the deadlines and task polls.
   */
  constructor(
    send: (message: JSONRPCMessage, onFailed: (error: unknown) => void) => void,
    clock: Clock = systemClock,
  ) {
    this.#send = send;
    this.#clock = clock;
  }

  /** How many calls are in flight (for tests: nothing is left behind). */
  get inFlight(): number {
    return this.#pending.size;
  }

  /** The answerers of the calls in flight (a 2025 server's question goes to the only one). */
  answerers(): (StdioToolCallOptions["answer"])[] {
    return [...this.#pending.values()].map((pending) => pending.options.answer);
  }

  /**
   * Calls tool `name` with `args`; resolves with the validated `CallToolResult`. Rejects as
   * the SDK does: `SdkError` (`RequestTimeout`, `ConnectionClosed`), `ProtocolError` (the
   * upstream's error), an `SdkError` `InvalidResult` for a malformed result, or the transport's
   * error when the request cannot be sent.
   */
  call(
    name: string,
    args: Record<string, unknown>,
    options: StdioToolCallOptions,
  ): Promise<Record<string, unknown>> {
    if (this.#closed) {
      return Promise.reject(new SdkError(SdkErrorCode.ConnectionClosed, "Connection closed"));
    }
    if (options.signal.aborted) return Promise.reject(options.signal.reason);
    const id = `${ID_PREFIX}${this.#next++}`;
    return new Promise((resolve, reject) => {
      const startedAt = this.#clock.now();
      const params: Record<string, unknown> = { ...options.params, name, arguments: args };
      const meta = {
        ...options.envelope,
        ...(options.onprogress === undefined ? {} : { progressToken: id }),
      };
      if (Object.keys(meta).length > 0) params._meta = meta;
      const pending: PendingCall = {
        resolve,
        reject,
        options,
        params,
        startedAt,
        deadline: Math.min(startedAt + options.timeout, startedAt + options.maxTotalTimeout),
        sharing: this.#callsUnder(options.signal),
        wireIds: new Set([id]),
        rounds: 0,
        waitingForInput: false,
      };
      this.#pending.add(id, pending);
      this.#wire.add(id, { call: id, kind: "call" });
      this.#armSweep(pending.deadline);
      if (this.#pending.size === 1) this.#clock.ref(this.#sweep!);
      pending.sharing.add(id);
      this.#send({ jsonrpc: "2.0", id, method: "tools/call", params }, (error) => {
        if (this.#settle(id) !== undefined) reject(error);
      });
    });
  }

  /**
   * Offered each message read from the upstream before the SDK sees it: true when it was the
   * answer to, or the progress of, a request of this module (it is then handled here).
   */
  take(message: unknown): boolean {
    if (typeof message !== "object" || message === null) return false;
    const record = message as Record<string, unknown>;
    const id = record.id;
    if (typeof id === "string") {
      if (!this.#issued(id) || "method" in record) return false;
      if (!("result" in record) && !("error" in record)) return false;
      // A late answer (the call timed out or was cancelled) is dropped here without a word; an
      // id never sent goes on to the SDK, which reports it.
      const entry = this.#wire.take(id);
      if (entry === undefined || entry.kind === "ignore") return true;
      const call = this.#pending.get(entry.call);
      if (call === undefined) return true;
      call.wireIds.delete(id);
      if (entry.kind === "call") this.#answer(entry.call, call, record);
      else if (entry.kind === "poll") this.#taskStatus(entry.call, call, record);
      else this.#taskUpdated(entry.call, call, record);
      return true;
    }
    if (record.method !== "notifications/progress") return false;
    const params = record.params as Record<string, unknown> | undefined;
    const token = params?.progressToken;
    if (typeof token !== "string" || !this.#issued(token)) return false;
    this.#progress(token, params!);
    return true;
  }

  /** Whether `id` is one this module sent (`gw-N` with N below the next number). */
  #issued(id: string): boolean {
    if (!id.startsWith(ID_PREFIX)) return false;
    const n = Number(id.slice(ID_PREFIX.length));
    return Number.isInteger(n) && n >= 1 && n < this.#next;
  }

  /** The connection is gone: every call in flight rejects with `ConnectionClosed`. */
  close(): void {
    this.#closed = true;
    this.#clock.clearTimeout(this.#sweep);
    this.#sweep = undefined;
    const error = new SdkError(SdkErrorCode.ConnectionClosed, "Connection closed");
    for (const key of this.#pending.ids()) this.#settle(key as string)?.reject(error);
  }

  /** Removes call `key` with its ids, timers and listener; the call, when it was still pending. */
  #settle(key: string): PendingCall | undefined {
    const pending = this.#pending.get(key);
    if (pending === undefined) return undefined;
    this.#pending.take(key);
    for (const id of pending.wireIds) this.#wire.take(id);
    this.#clock.clearTimeout(pending.pollTimer);
    if (this.#pending.size === 0 && this.#sweep !== undefined) this.#clock.unref(this.#sweep);
    pending.sharing.delete(key);
    return pending;
  }

  /** Sends request `method` for call `key`; its answer goes where `kind` says. */
  #request(
    key: string,
    call: PendingCall,
    kind: "call" | "poll" | "update",
    method: string,
    params: Record<string, unknown>,
  ): void {
    const id = `${ID_PREFIX}${this.#next++}`;
    call.wireIds.add(id);
    this.#wire.add(id, { call: key, kind });
    this.#send({ jsonrpc: "2.0", id, method, params }, (error) => {
      if (this.#settle(key) !== undefined) call.reject(error);
    });
  }

  /** Tells the upstream to stop `call`'s work (its request, or the task it became). */
  #stopUpstream(call: PendingCall, reason: unknown): void {
    if (call.taskId !== undefined) {
      // The task outlives its request: it is cancelled by id; the answer is not waited for.
      const id = `${ID_PREFIX}${this.#next++}`;
      this.#wire.add(id, { kind: "ignore" });
      this.#send({
        jsonrpc: "2.0",
        id,
        method: "tasks/cancel",
        params: { taskId: call.taskId, ...this.#meta(call) },
      }, () => this.#wire.take(id));
      return;
    }
    for (const id of call.wireIds) {
      this.#send({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: id, reason: String(reason), ...this.#meta(call) },
      }, () => undefined);
    }
  }

  /** `{ _meta: envelope }` on a 2026-07-28 connection, else nothing. */
  #meta(call: PendingCall): { _meta?: Record<string, unknown> } {
    return call.options.envelope === undefined ? {} : { _meta: call.options.envelope };
  }

  #cancel(key: string, reason: unknown): void {
    const pending = this.#settle(key);
    if (pending === undefined) return;
    this.#stopUpstream(pending, reason);
    pending.reject(
      reason instanceof SdkError || reason instanceof ProtocolError
        ? reason
        : new SdkError(SdkErrorCode.RequestTimeout, String(reason)),
    );
  }

  /**
   * The calls in flight under `signal` (a run's signal serves all its calls): one abort
   * listener per signal, not one added and removed per call.
   */
  #callsUnder(signal: AbortSignal): Set<string> {
    let ids = this.#bySignal.get(signal);
    if (ids === undefined) {
      const calls = new Set<string>();
      signal.addEventListener("abort", () => {
        for (const id of [...calls]) this.#cancel(id, signal.reason);
      }, { once: true });
      this.#bySignal.set(signal, calls);
      ids = calls;
    }
    return ids;
  }

  /** Makes sure the sweep runs by `deadline`. */
  #armSweep(deadline: number): void {
    if (this.#sweep !== undefined && this.#sweepAt <= deadline) return;
    this.#clock.clearTimeout(this.#sweep);
    this.#sweepAt = deadline;
    this.#sweep = this.#clock.setTimeout(
      () => this.#sweepDeadlines(),
      Math.max(0, deadline - this.#clock.now()),
    );
    // A call in flight keeps the process alive; the sweep of calls already answered does not.
    if (this.#pending.size === 0) this.#clock.unref(this.#sweep);
  }

  /** Times out every call past its deadline, then waits for the next deadline. */
  #sweepDeadlines(): void {
    this.#sweep = undefined;
    this.#sweepAt = Infinity;
    const now = this.#clock.now();
    let next = Infinity;
    for (const [key, pending] of [...this.#pending.entries()]) {
      if (pending.deadline <= now) this.#timeOut(key as string, now);
      else next = Math.min(next, pending.deadline);
    }
    if (next !== Infinity) this.#armSweep(next);
  }

  /**
   * Ends call `key` at its deadline: past the maximum (`data.maxTotalTimeout` says so) or after
   * `timeout` without an answer or progress. The upstream is told to stop.
   */
  #timeOut(key: string, now: number): void {
    const pending = this.#pending.get(key);
    if (pending === undefined) return;
    const { options, startedAt } = pending;
    const error = now - startedAt >= options.maxTotalTimeout
      ? new SdkError(SdkErrorCode.RequestTimeout, "Maximum total timeout exceeded", {
        maxTotalTimeout: options.maxTotalTimeout,
        totalElapsed: now - startedAt,
      })
      : new SdkError(SdkErrorCode.RequestTimeout, "Request timed out", {
        timeout: options.timeout,
      });
    this.#cancel(key, error);
  }

  /** A sign of life of call `key`: its silence deadline moves on (never past the maximum). */
  #alive(pending: PendingCall, now: number): void {
    const { options, startedAt } = pending;
    const maximum = startedAt + options.maxTotalTimeout;
    pending.deadline = pending.waitingForInput ? maximum : Math.min(now + options.timeout, maximum);
    this.#armSweep(pending.deadline);
  }

  #answer(key: string, pending: PendingCall, response: Record<string, unknown>): void {
    if ("error" in response) {
      this.#settle(key);
      pending.reject(protocolError(response.error));
      return;
    }
    const result = response.result;
    const kind = resultKind(result, pending.options.envelope !== undefined);
    if (kind === "input_required") {
      if (pending.options.handBack === true && isRecord(result)) {
        this.#settle(key);
        pending.resolve(result);
        return;
      }
      this.#inputRequired(key, pending, result as Record<string, unknown>);
      return;
    }
    if (kind === "task") {
      this.#taskCreated(key, pending, result as Record<string, unknown>);
      return;
    }
    if (kind !== "complete") {
      this.#settle(key);
      pending.reject(
        new SdkError(SdkErrorCode.UnsupportedResultType, `Unsupported result type '${kind}'`, {
          resultType: kind,
          method: "tools/call",
        }),
      );
      return;
    }
    this.#complete(key, pending, result);
  }

  /** Settles call `key` with `result` (a complete tool result), validated. */
  #complete(key: string, pending: PendingCall, result: unknown): void {
    this.#settle(key);
    const plain = withoutResultType(result);
    if (isPlainTextResult(plain)) {
      pending.resolve(plain);
      return;
    }
    const checked = checkCallToolResult(plain);
    if ("value" in checked) pending.resolve(checked.value);
    else {
      pending.reject(
        new SdkError(
          SdkErrorCode.InvalidResult,
          `Invalid result for tools/call: ${checked.issues}`,
        ),
      );
    }
  }

  /** The server asks the user something: answer it, then send the call again with the answers. */
  #inputRequired(key: string, pending: PendingCall, result: Record<string, unknown>): void {
    const requests = isRecord(result.inputRequests) ? result.inputRequests : {};
    const requestState = typeof result.requestState === "string" ? result.requestState : undefined;
    if (Object.keys(requests).length === 0 && requestState === undefined) {
      this.#settle(key);
      pending.reject(
        new SdkError(
          SdkErrorCode.InvalidResult,
          "Invalid result for tools/call: input_required carries neither inputRequests nor requestState",
        ),
      );
      return;
    }
    if (++pending.rounds > MAX_INPUT_ROUNDS) {
      this.#settle(key);
      pending.reject(
        new SdkError(
          SdkErrorCode.InputRequiredRoundsExceeded,
          `The server asked for input more than ${MAX_INPUT_ROUNDS} times in one call`,
        ),
      );
      return;
    }
    this.#withAnswers(key, pending, requests, (responses) => {
      this.#request(key, pending, "call", "tools/call", {
        ...pending.params,
        inputResponses: responses,
        ...(requestState === undefined ? {} : { requestState }),
      });
    });
  }

  /**
   * Asks the call's `answer` for `requests` (none: an empty answer at once), holding the
   * silence timeout meanwhile, then hands the responses to `then` if the call is still on.
   */
  #withAnswers(
    key: string,
    pending: PendingCall,
    requests: Record<string, unknown>,
    then: (responses: Record<string, unknown>) => void,
  ): void {
    if (Object.keys(requests).length === 0) {
      then({});
      return;
    }
    const answer = pending.options.answer;
    if (answer === undefined) {
      this.#cancel(
        key,
        new SdkError(
          SdkErrorCode.CapabilityNotSupported,
          "The server asked for input, and nobody can be asked for this call",
        ),
      );
      return;
    }
    pending.waitingForInput = true;
    this.#alive(pending, this.#clock.now());
    answer(requests).then((responses) => {
      if (this.#pending.get(key) !== pending) return;
      pending.waitingForInput = false;
      this.#alive(pending, this.#clock.now());
      then(responses);
    }, (error) => {
      if (this.#settle(key) === undefined) return;
      this.#stopUpstream(pending, error);
      pending.reject(
        new SdkError(
          SdkErrorCode.CapabilityNotSupported,
          `Cannot answer the server: ${error instanceof Error ? error.message : String(error)}`,
          undefined,
          { cause: error },
        ),
      );
    });
  }

  /** The server made a task of the call: poll it until it ends. */
  #taskCreated(key: string, pending: PendingCall, task: Record<string, unknown>): void {
    if (typeof task.taskId !== "string") {
      this.#settle(key);
      pending.reject(
        new SdkError(
          SdkErrorCode.InvalidResult,
          "Invalid result for tools/call: a task without taskId",
        ),
      );
      return;
    }
    pending.taskId = task.taskId;
    this.#onTask(key, pending, task);
  }

  /** A task's status (from its creation or a poll): settle, answer, or poll again. */
  #onTask(key: string, pending: PendingCall, task: Record<string, unknown>): void {
    const now = this.#clock.now();
    this.#alive(pending, now);
    const status = task.status;
    const message = typeof task.statusMessage === "string" ? task.statusMessage : undefined;
    pending.options.onprogress?.({
      progress: now - pending.startedAt,
      ...(message === undefined ? { message: `task ${String(status)}` } : { message }),
    });
    switch (status) {
      case "completed":
        if (!isRecord(task.result)) {
          this.#settle(key);
          pending.reject(
            new SdkError(SdkErrorCode.InvalidResult, "The task completed without a result"),
          );
          return;
        }
        this.#complete(key, pending, task.result);
        return;
      case "failed":
        this.#settle(key);
        pending.reject(
          isRecord(task.error)
            ? protocolError(task.error)
            : new ProtocolError(ProtocolErrorCode.InternalError, message ?? "The task failed"),
        );
        return;
      case "cancelled":
        this.#settle(key);
        pending.reject(
          new ProtocolError(
            ProtocolErrorCode.InternalError,
            `The server cancelled the task${message === undefined ? "" : `: ${message}`}`,
          ),
        );
        return;
      case "input_required": {
        const requests = isRecord(task.inputRequests) ? task.inputRequests : {};
        this.#withAnswers(key, pending, requests, (responses) => {
          this.#request(key, pending, "update", "tasks/update", {
            taskId: pending.taskId,
            inputResponses: responses,
            ...this.#meta(pending),
          });
        });
        return;
      }
      default:
        this.#schedulePoll(key, pending, task.pollIntervalMs);
    }
  }

  #schedulePoll(key: string, pending: PendingCall, suggested: unknown): void {
    const interval = typeof suggested === "number" && Number.isFinite(suggested)
      ? Math.min(TASK_POLL_MS.max, Math.max(TASK_POLL_MS.min, suggested))
      : TASK_POLL_MS.default;
    this.#clock.clearTimeout(pending.pollTimer);
    pending.pollTimer = this.#clock.setTimeout(() => {
      if (this.#pending.get(key) !== pending) return;
      this.#request(key, pending, "poll", "tasks/get", {
        taskId: pending.taskId,
        ...this.#meta(pending),
      });
    }, interval);
  }

  #taskStatus(key: string, pending: PendingCall, response: Record<string, unknown>): void {
    if ("error" in response) {
      this.#settle(key);
      pending.reject(protocolError(response.error));
      return;
    }
    const task = withoutResultType(response.result);
    if (!isRecord(task)) {
      this.#settle(key);
      pending.reject(new SdkError(SdkErrorCode.InvalidResult, "Invalid result for tasks/get"));
      return;
    }
    this.#onTask(key, pending, task);
  }

  /** `tasks/update` was answered: poll on (the task goes on working). */
  #taskUpdated(key: string, pending: PendingCall, response: Record<string, unknown>): void {
    if ("error" in response) {
      this.#settle(key);
      this.#stopUpstream(pending, "tasks/update failed");
      pending.reject(protocolError(response.error));
      return;
    }
    this.#alive(pending, this.#clock.now());
    this.#schedulePoll(key, pending, undefined);
  }

  #progress(token: string, params: Record<string, unknown>): void {
    const pending = this.#pending.get(token);
    if (pending === undefined) return;
    const { options } = pending;
    const now = this.#clock.now();
    if (now - pending.startedAt >= options.maxTotalTimeout) {
      this.#timeOut(token, now);
      return;
    }
    if (!pending.waitingForInput) {
      pending.deadline = Math.min(
        now + options.timeout,
        pending.startedAt + options.maxTotalTimeout,
      );
    }
    if (typeof params.progress !== "number") return;
    const update: { progress: number; total?: number; message?: string } = {
      progress: params.progress,
    };
    if (typeof params.total === "number") update.total = params.total;
    if (typeof params.message === "string") update.message = params.message;
    options.onprogress?.(update);
  }
}
