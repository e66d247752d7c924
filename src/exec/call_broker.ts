/**
 * The gateway's side of one run's channel while the script runs: it answers the script's tool
 * calls and resource reads under the run's limits (`exec.maxToolCalls`, one turn each under
 * `exec.maxConcurrentCalls`), keeps the call records history stores, and collects what the
 * script hands back (result, warnings, attachments, its uncaught failure). It serves the
 * runner's requests through a `MessagePeer` and knows nothing of processes, so it is tested
 * over an in-memory pair.
 * @module
 */

import {
  type CallErrorData,
  type CallLineParams,
  type CallParams,
  type ChannelError,
  ChannelMethod,
  type ResourcesParams,
  type ScriptFailure,
} from "../protocol/channel_messages.ts";
import { RpcCode, RpcError } from "../protocol/json_rpc.ts";
import { type Clock, systemClock, type TimerId } from "../protocol/clock.ts";
import type { IncomingRequest, MessagePeer } from "../protocol/message_peer.ts";
import type { Attachment } from "../protocol/run_document.ts";
import { ToolCallError, type ToolProgress } from "../protocol/tool_call.ts";
import { GatewayTelemetry, type RunTrace } from "../telemetry/gateway_telemetry.ts";
import type { ToolCallRecord } from "../store/run_history.ts";
import type { RunReturns } from "./run_returns.ts";
import { Semaphore } from "./semaphore.ts";
import { messageOf } from "../protocol/message_of.ts";
import { withTypedToolName } from "../protocol/typed_tool_name.ts";

/** A call from a script, as the router receives it. */
export interface ScriptToolCall {
  runId: string;
  namespace: string;
  tool: string;
  args: unknown;
  raw: boolean;
  signal: AbortSignal;
  callTimeoutMs: number;
  /** True when the run's type check covered the call's argument (no need to check it again). */
  argsChecked?: boolean;
  onProgress?: (progress: ToolProgress) => void;
  /** When the run times out (epoch ms), so a held call can end before it. */
  deadline?: number;
  /** Told when a policy `ask` was answered, so the call's history record says by whom. */
  onApproval?: (decision: { allowed: boolean; by: string; at: number }) => void;
}

/** The part of a runner's peer the broker uses (a socket in a run, memory in tests). */
export type BrokerConnection = Pick<
  MessagePeer,
  "serve" | "on" | "notify" | "serving" | "served"
>;

/** A resources request from a script (`resources.list()`, `resources.read(uri)`). */
export type ResourcesRequest = ResourcesParams;

/** Options of {@linkcode CallBroker}. */
export interface CallBrokerOptions {
  runId: string;
  connection: BrokerConnection;
  /** Collects the script's result, warnings and attachments under the run's caps. */
  returns: RunReturns;
  maxToolCalls: number;
  /** Calls in flight at once; more wait their turn (they do not fail). */
  maxConcurrentCalls: number;
  callTimeoutMs: number;
  /** When the run times out (epoch ms). */
  deadline: number;
  /** True when the run was type-checked, so calls' arguments need no second check. */
  argsChecked: boolean;
  /** Resolves with the value to hand the script (unwrapped, or the envelope when `raw`). */
  callTool(call: ScriptToolCall): Promise<unknown>;
  resources(request: ResourcesRequest): Promise<unknown>;
  /** The run's spans; each call opens a child span. */
  trace: RunTrace;
  /** What kind of upstream serves a namespace ("local", "mcp"), for call spans. */
  upstreamOf?: (namespace: string) => string;
  /**
   * The path a script types for a tool named by the upstream (`everything.get_sum` for
   * `everything`, `get-sum`), so a failed call's message names the tool as the script does.
   */
  typedName?: (namespace: string, tool: string) => string | undefined;
  /** Upstream progress of the run's tool calls. */
  onProgress?: (progress: ToolProgress & { namespace: string; tool: string }) => void;
  /** The sweep that asks for waiting calls' lines. @default {systemClock} */
  clock?: Clock;
}

/** A call of the script, as the broker knows it while it waits. */
export type CallMessage = CallParams & { id: number };

/** Why a stopped broker's calls were aborted; built at the first stop. */
let runOver: DOMException | undefined;

/** Brokers one run's channel messages; see the module doc. */
export class CallBroker {
  /** Every call answered, in the order they ended, for history. */
  readonly toolCalls: ToolCallRecord[] = [];
  readonly #options: CallBrokerOptions;
  readonly #turns: Semaphore;
  readonly #calls = new AbortController();
  #callCount = 0;
  #failure: ScriptFailure | null = null;
  /** Calls a line sweep saw waiting (true once their line was asked for). */
  readonly #waited = new Map<number, boolean>();
  #lineSweep: TimerId | undefined;
  readonly #clock: Clock;

  constructor(options: CallBrokerOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#turns = new Semaphore(() => options.maxConcurrentCalls);
    const connection = options.connection;
    const { returns } = options;
    connection.serve(
      ChannelMethod.call,
      (params, request) => this.#call(params as CallParams, request),
    );
    connection.serve(ChannelMethod.resources, (params, request) => {
      const resources = params as ResourcesParams;
      let answered: Promise<unknown>;
      try {
        answered = options.resources(resources);
      } catch (error) {
        answered = Promise.reject(error);
      }
      answered.then(
        (value) => replyOrFail(request, value, resources.namespace, "resources"),
        (error) => request.fail(callError(toChannelError(error, resources.namespace, "resources"))),
      );
    });
    connection.on(ChannelMethod.result, (params) => {
      returns.setResult((params as { value: unknown }).value);
    });
    connection.on(ChannelMethod.warning, (params) => {
      returns.addWarning(String((params as { message: unknown }).message));
    });
    connection.on(ChannelMethod.attach, (params) => {
      returns.addAttachment((params as { block: unknown }).block as Attachment);
    });
    connection.on(ChannelMethod.failed, (params) => {
      this.#failure = (params as { error: ScriptFailure }).error;
    });
    connection.on(ChannelMethod.callLine, (params) => {
      const { id, line } = params as CallLineParams;
      const waiting = connection.served(id);
      if (waiting?.method === ChannelMethod.call) (waiting.params as CallParams).line = line;
    });
  }

  /** The script's uncaught failure, as the runner reported it (null when none came). */
  get failure(): ScriptFailure | null {
    return this.#failure;
  }

  /** The oldest call still waiting for its answer, so a stopped run can name its line. */
  waitingCall(): CallMessage | undefined {
    for (const request of this.#options.connection.serving()) {
      if (request.method === ChannelMethod.call) {
        return { ...(request.params as CallParams), id: request.id as number };
      }
    }
    return undefined;
  }

  /** Aborts the calls in flight: the run is over. */
  stop(): void {
    // One reason for every run (as an abort without one would give): a DOMException and its
    // stack per run cost the server's run path measurably.
    this.#calls.abort(runOver ??= new DOMException("The signal has been aborted", "AbortError"));
    if (this.#lineSweep !== undefined) this.#clock.clearTimeout(this.#lineSweep);
    this.#lineSweep = undefined;
  }

  /**
   * Asks the runner for the script line of each call that has waited a sweep period, so a run
   * stopped while waiting names it. The runner finds a line by formatting a stack, which costs
   * more than a whole fast call, so calls that answer quickly are never located.
   */
  #sweepLines(): void {
    this.#lineSweep = undefined;
    let waiting = false;
    const connection = this.#options.connection;
    for (const request of connection.serving()) {
      if (request.method !== ChannelMethod.call) continue;
      const id = request.id as number;
      const asked = this.#waited.get(id);
      if (asked === true || (request.params as CallParams).line !== undefined) continue;
      if (asked === undefined) {
        this.#waited.set(id, false);
        waiting = true;
      } else {
        this.#waited.set(id, true);
        connection.notify(ChannelMethod.locate, { id });
      }
    }
    if (waiting) this.#armLineSweep();
  }

  #armLineSweep(): void {
    if (this.#lineSweep !== undefined || this.#calls.signal.aborted) return;
    this.#lineSweep = this.#clock.setTimeout(() => this.#sweepLines(), LINE_SWEEP_MS);
    // Never what keeps a process alive (the run's end clears it).
    this.#clock.unref(this.#lineSweep);
  }

  #call(message: CallParams, request: IncomingRequest): void {
    const { maxToolCalls } = this.#options;
    this.#callCount++;
    if (this.#callCount > maxToolCalls) {
      request.fail(callError({
        kind: "ToolCallLimitExceeded",
        message:
          `Run exceeded exec.maxToolCalls (${maxToolCalls}) at ${message.namespace}.${message.tool}`,
        namespace: message.namespace,
        tool: message.tool,
      }));
      return;
    }
    // Calls past the per-run concurrency cap wait their turn; they do not fail. A call that
    // finds a turn free is sent on in this turn, without a promise in between.
    const release = this.#turns.tryAcquire();
    if (release !== null) this.#answer(message, request, release);
    else this.#turns.acquire().then((later) => this.#answer(message, request, later));
  }

  /** Calls the tool, writes the reply, records the call, then gives back its turn. */
  #answer(message: CallParams, request: IncomingRequest, release: () => void): void {
    const options = this.#options;
    const { namespace, tool } = message;
    const id = request.id as number;
    this.#armLineSweep();
    const started = Date.now();
    let approval: ToolCallRecord["approval"] = null;
    const callTrace = options.trace.call(
      namespace,
      tool,
      options.upstreamOf?.(namespace) ?? "unknown",
    );
    const onProgress = options.onProgress;
    const record = (ok: boolean, errorKind: string | null, answer: CallAnswer) => {
      const call: ToolCallRecord = {
        namespace,
        tool,
        startedAt: started,
        durationMs: Date.now() - started,
        ok,
        errorKind,
      };
      if (approval) call.approval = approval;
      setCallResult(call, answer);
      this.toolCalls.push(call);
    };
    const settled = () => {
      this.#waited.delete(id);
      release();
    };
    let answered: Promise<unknown>;
    try {
      const call: ScriptToolCall = {
        runId: options.runId,
        deadline: options.deadline,
        onApproval: (decision) => (approval = decision),
        namespace,
        tool,
        args: message.args,
        raw: message.raw,
        argsChecked: options.argsChecked,
        signal: this.#calls.signal,
        callTimeoutMs: options.callTimeoutMs,
      };
      if (onProgress) call.onProgress = (p) => onProgress({ ...p, namespace, tool });
      answered = GatewayTelemetry.within(callTrace.context, () => options.callTool(call));
    } catch (error) {
      answered = Promise.reject(error);
    }
    answered.then(
      // The reply is written first and the call's bookkeeping done while it travels: the
      // script waits for nothing but its answer. Both happen in this turn, so the
      // run's end always finds the record.
      (value) => {
        try {
          replyOrFail(request, value, namespace, tool);
          callTrace.end({ ok: true });
          record(true, null, { value });
        } finally {
          settled();
        }
      },
      (error) => {
        try {
          const channelError = toChannelError(error, namespace, tool);
          const typed = options.typedName?.(namespace, tool);
          if (typed !== undefined) {
            channelError.message = withTypedToolName(channelError.message, {
              namespace,
              tool,
              typed,
            });
          }
          request.fail(
            callError(channelError, error instanceof ToolCallError ? error.raw : undefined),
          );
          callTrace.end({ ok: false, kind: channelError.kind });
          record(false, channelError.kind, { text: channelError.message });
        } finally {
          settled();
        }
      },
    );
  }
}

/** How often waiting calls are swept: a call's line is asked for after one to two periods. */
const LINE_SWEEP_MS = 20;

/** Most characters of a call's result a run holds for history, which keeps fewer still. */
const CALL_RESULT_HEAD_CHARS = 16_384;

type CallAnswer = { value: unknown } | { text: string };

/**
 * Sets a call's result on its history record: the JSON text of what it answered (`value`), or
 * the message of its error as written (`text`). Only a head is held until the run ends, with the
 * whole size when cut, so a call answering megabytes costs the run no megabytes more.
 */
function setCallResult(call: ToolCallRecord, answer: CallAnswer): void {
  let text: string | undefined;
  if ("text" in answer) text = answer.text;
  else {
    try {
      text = JSON.stringify(answer.value);
    } catch (error) {
      text = `[result not JSON: ${messageOf(error)}]`;
    }
  }
  if (text === undefined) return;
  if (text.length <= CALL_RESULT_HEAD_CHARS) {
    call.result = text;
    return;
  }
  call.result = text.slice(0, CALL_RESULT_HEAD_CHARS);
  call.resultTotalBytes = new TextEncoder().encode(text).length;
}

/** The wire error of a failed call: its message, with its kind and envelope in `data`. */
function callError(error: ChannelError, raw?: unknown): RpcError {
  const data: CallErrorData = { kind: error.kind };
  if (error.namespace !== undefined) data.namespace = error.namespace;
  if (error.tool !== undefined) data.tool = error.tool;
  if (raw !== undefined && raw !== null) data.raw = raw;
  return new RpcError(RpcCode.GatewayError, error.message, data as RpcError["data"]);
}

/** Answers `request` with `value`, or with why it cannot cross the channel (not JSON, too large). */
function replyOrFail(
  request: IncomingRequest,
  value: unknown,
  namespace: string,
  tool: string,
): void {
  try {
    request.reply(value);
  } catch (error) {
    request.fail(callError({
      kind: "ToolError",
      message: `The answer of ${namespace}.${tool} cannot be sent to the script: ${
        messageOf(error)
      }`,
      namespace,
      tool,
    }));
  }
}

function toChannelError(error: unknown, namespace: string, tool: string): ChannelError {
  if (error instanceof ToolCallError) {
    return { kind: error.kind, message: error.message, namespace, tool };
  }
  const message = messageOf(error);
  return { kind: "ToolError", message, namespace, tool };
}
