/**
 * One MCP tool call on a live connection: progress throttling, the silence timeout and the hard
 * maximum, upstream cancellation, and the mapping of every way it can fail to a failure kind.
 * @module
 */

import {
  type HostRound,
  isInputRequiredAnswer,
  type RawToolResult,
  ToolCallError,
  type ToolCallOptions,
  type ToolCallResult,
  type ToolProgress,
  type UpstreamRpcError,
} from "../namespace.ts";
import type { UpstreamConnection } from "./connect_upstream.ts";
import type { McpToolEntry } from "./load_mcp_tools.ts";
import type { ArgumentCheck } from "../kind_support/tool_input_check.ts";
import { CLIENT_CAPABILITIES, CLIENT_INFO } from "./connect_upstream.ts";
import {
  type Client,
  ENVELOPE_KEYS,
  InsufficientScopeError,
  ProtocolError,
  SdkError,
  SdkErrorCode,
} from "./mcp_sdk.ts";
import { type AnswerInput, inputAnswerer } from "./upstream_question.ts";
import type { LoginRequiredError } from "./upstream_oauth_provider.ts";
import { unwrapToolResult } from "./unwrap_tool_result.ts";
import { messageOf } from "../../protocol/message_of.ts";
import { ProgressThrottle } from "./progress_throttle.ts";
import type { ParkedCalls } from "./parked_calls.ts";
import type { UpstreamLogMessage } from "../namespace.ts";

/**
 * What a failing call tells the connection's owner, and asks of it: a dead transport or a lost
 * login ends the connection for every call, not only this one.
 */
export interface McpCallHost {
  /** The namespace name, for messages. */
  readonly name: string;
  /** Why the namespace is not ready, in words (e.g. the failed reason). */
  unavailableReason(): string;
  /** The OAuth scope a 403 asks for, when the server named one beyond the grant. */
  stepUpScope(): string | null;
  /** The login problem behind `error`, or null when it is none. */
  loginRequired(error: unknown): LoginRequiredError | null;
  /** Drops `connection` (when still current) and marks the namespace failed until a login. */
  dropForLogin(connection: UpstreamConnection, login: LoginRequiredError): void;
  /** Drops `connection` (when still current), counts a crash and schedules the reconnect. */
  connectionLost(connection: UpstreamConnection, detail: string): void;
  /** Logs something a call did on the user's behalf (a question declined without asking). */
  note(message: string): void;
  /**
   * Tells `listener` each log message the upstream sends until the returned function is
   * called (a host round's log messages go to its host); such messages are relayed no further.
   */
  watchLogs(listener: (message: UpstreamLogMessage) => void): () => void;
  /** The calls of a 2025 connection waiting for a host's answer. */
  readonly parked: ParkedCalls;
}

/**
 * Sends `input` to tool `entry` over `connection` and unwraps the answer. A question
 * the server asks meanwhile goes to `options.askUser`; with `options.hostRound` it goes back to
 * the caller instead, as the upstream's input-required answer ({@linkcode InputRequiredAnswer}
 * as the raw result). Rejects with a {@linkcode ToolCallError} of kind `Cancelled`,
 * `ToolTimeout`, `ToolError` or `NamespaceUnavailable`; the last also tells `host` the
 * connection is gone.
 */
export function sendMcpToolCall(
  host: McpCallHost,
  call: { connection: UpstreamConnection; entry: McpToolEntry; input: Record<string, unknown> },
  options: ToolCallOptions,
): Promise<ToolCallResult> {
  const { connection, entry, input } = call;
  const tool = entry.listing.name;
  if (options.signal.aborted) {
    return Promise.reject(
      new ToolCallError("Cancelled", `Call to "${host.name}.${tool}" was cancelled`),
    );
  }
  // The caller is protected from a flood of progress, never starved of a short burst; the gate
  // is made by the first update (most calls report none).
  let throttle: ProgressThrottle | undefined;
  const onProgress = options.onProgress;
  const onprogress = (
    progress: { progress: number; total?: number | undefined; message?: string | undefined },
  ) => {
    if (onProgress === undefined) return;
    const update: ToolProgress = { progress: progress.progress };
    if (progress.total !== undefined) update.total = progress.total;
    if (progress.message !== undefined) update.message = progress.message;
    (throttle ??= new ProgressThrottle(onProgress)).offer(update);
  };
  const unwrap = (
    answer: Record<string, unknown>,
    check?: ArgumentCheck | null,
  ): ToolCallResult => {
    throttle?.end();
    if (options.hostRound !== undefined && isInputRequiredAnswer(answer)) {
      return { value: answer, raw: answer };
    }
    const result = check
      ? checkedStructuredContent(answer, check, `"${host.name}.${tool}"`)
      : answer;
    const raw: RawToolResult = Array.isArray(result.content)
      ? result as RawToolResult
      : { content: [], structuredContent: result.toolResult };
    return unwrapToolResult(raw, {
      namespace: host.name,
      tool,
      hasOutputSchema: entry.listing.outputSchema !== undefined,
    });
  };
  const fail = (error: unknown, context: FailureContext): never => {
    throttle?.end();
    throw callFailure(host, error, context);
  };
  if (options.hostRound !== undefined) {
    return sendHostRound(host, call, options, { onprogress, unwrap, fail });
  }
  // Over stdio, a tool is called past the SDK's zod checks, with the same timeouts (the maximum
  // included), cancellation and result validation, its structured content checked against its
  // output schema as the SDK does; one whose output schema ajv cannot compile goes the SDK's way.
  const outputCheck = entry.listing.outputSchema === undefined
    ? undefined
    : entry.outputCheck?.() ?? null;
  const direct = outputCheck === null ? undefined : connection.process;
  const answer = inputAnswerer(options.askUser, (note) => host.note(`(call to "${tool}") ${note}`));
  if (direct !== undefined) {
    const envelope = connection.era === "modern" ? requestEnvelope(connection) : undefined;
    // One promise layer between the answer and the caller (a call's every turn counts).
    return direct.toolCalls.call(tool, input, {
      signal: options.signal,
      timeout: options.callTimeoutMs,
      maxTotalTimeout: options.callMaxMs,
      onprogress,
      answer,
      ...(envelope === undefined ? {} : { envelope }),
    }).then((result) => unwrap(result, outputCheck), (error) =>
      // A timed-out or aborted direct call has told the upstream to stop already.
      fail(error, {
        tool,
        options,
        hitMaximum: false,
        cancelUpstream: () => {},
        connection,
      }));
  }
  return callViaSdk({ connection, tool, input }, options, {
    onprogress,
    unwrap,
    answer,
    fail,
  });
}

/** How the two call paths finish a call: the answer unwrapped, or the failure mapped. */
interface CallEnds {
  onprogress: (
    progress: { progress: number; total?: number | undefined; message?: string | undefined },
  ) => void;
  /** The call's value from its answer, its structured content checked by `check` when given. */
  unwrap: (answer: Record<string, unknown>, check?: ArgumentCheck | null) => ToolCallResult;
  fail: (error: unknown, context: FailureContext) => never;
}

/**
 * One round of a call whose caller answers the server's questions (`options.hostRound`). On a
 * 2026-07-28 connection the request carries the host's answers and state, and the host's
 * capabilities and log level in its envelope; an input-required answer is handed back as it
 * is. A 2025 server asks in the middle of the call instead: the call is parked while the host
 * answers (parked_calls.ts). The upstream's log messages while it runs go to the round's
 * `onLog`.
 */
function sendHostRound(
  host: McpCallHost,
  call: { connection: UpstreamConnection; entry: McpToolEntry; input: Record<string, unknown> },
  options: ToolCallOptions,
  ends: CallEnds,
): Promise<ToolCallResult> {
  const round = options.hostRound!;
  const tool = call.entry.listing.name;
  const unwatch = round.onLog === undefined ? undefined : host.watchLogs(round.onLog);
  const sent = call.connection.era === "modern"
    ? sendOnce(call, options, ends, undefined)
    : host.parked.round(
      tool,
      round,
      options.signal,
      (answer, signal) => sendOnce(call, { ...options, signal }, ends, answer),
    );
  if (unwatch === undefined) return sent;
  // The SDK hands a notification to its handler a turn after reading it, an answer read in the
  // same chunk goes at once: the watch ends a turn after the answer, so the last message before
  // it is still the round's.
  return sent.finally(() => void setTimeout(unwatch, 0));
}

/**
 * Sends a host round's request once: on a 2026-07-28 connection with the host's answers, state
 * and envelope, handing an input-required answer back; on a 2025 one as a plain call whose
 * questions go to `answer` (the parked call's).
 */
function sendOnce(
  call: { connection: UpstreamConnection; entry: McpToolEntry; input: Record<string, unknown> },
  options: ToolCallOptions,
  ends: CallEnds,
  answer: AnswerInput | undefined,
): Promise<ToolCallResult> {
  const { connection, entry, input } = call;
  const round = options.hostRound!;
  const tool = entry.listing.name;
  const modern = connection.era === "modern";
  const retry = !modern ? {} : {
    ...(round.inputResponses === undefined ? {} : { inputResponses: round.inputResponses }),
    ...(round.requestState === undefined ? {} : { requestState: round.requestState }),
  };
  const envelope = modern ? hostEnvelope(connection.client, round) : undefined;
  const outputCheck = entry.listing.outputSchema === undefined
    ? undefined
    : entry.outputCheck?.() ?? null;
  const direct = outputCheck === null ? undefined : connection.process;
  if (direct === undefined) {
    return callViaSdk({ connection, tool, input }, options, {
      ...ends,
      answer,
      params: { ...retry, ...(envelope === undefined ? {} : { _meta: envelope }) },
    });
  }
  return direct.toolCalls.call(tool, input, {
    signal: options.signal,
    timeout: options.callTimeoutMs,
    maxTotalTimeout: options.callMaxMs,
    onprogress: ends.onprogress,
    handBack: true,
    params: retry,
    ...(answer === undefined ? {} : { answer }),
    ...(envelope === undefined ? {} : { envelope }),
  }).then((result) => ends.unwrap(result, outputCheck), (error) =>
    ends.fail(error, {
      tool,
      options,
      hitMaximum: false,
      cancelUpstream: () => {},
      connection,
    }));
}

/**
 * The 2026-07-28 `_meta` envelope of a request on `connection`, as the SDK's client attaches it
 * to each of its own: the negotiated version, the client's name and capabilities.
 */
function requestEnvelope(connection: UpstreamConnection): Record<string, unknown> {
  return {
    [ENVELOPE_KEYS.protocolVersion]: connection.client.getNegotiatedProtocolVersion(),
    [ENVELOPE_KEYS.clientInfo]: CLIENT_INFO,
    [ENVELOPE_KEYS.clientCapabilities]: CLIENT_CAPABILITIES,
  };
}

/**
 * The envelope of a host round's request: the host's capabilities (what the upstream may ask
 * it) and log level in place of the gateway's own.
 */
export function hostEnvelope(client: Client, round: HostRound): Record<string, unknown> {
  return {
    [ENVELOPE_KEYS.protocolVersion]: client.getNegotiatedProtocolVersion(),
    [ENVELOPE_KEYS.clientInfo]: CLIENT_INFO,
    [ENVELOPE_KEYS.clientCapabilities]: round.capabilities,
    ...(round.logLevel === undefined ? {} : { [ENVELOPE_KEYS.logLevel]: round.logLevel }),
  };
}

/**
 * `result` when its structured content fits the tool's output schema, as `Client.callTool`
 * requires: an answer that is not an error must carry structured content, and it must pass the
 * schema. Throws `ToolError` naming the tool and what does not fit.
 */
function checkedStructuredContent(
  result: Record<string, unknown>,
  check: ArgumentCheck,
  what: string,
): Record<string, unknown> {
  if (result.isError === true) return result;
  const structured = result.structuredContent;
  if (structured === undefined || structured === null) {
    throw new ToolCallError(
      "ToolError",
      `Tool ${what} failed: it has an output schema but returned no structured content`,
    );
  }
  const problems = check(structured);
  if (problems.length > 0) {
    throw new ToolCallError(
      "ToolError",
      `Tool ${what} failed: its structured content does not match its output schema: ${
        problems.join("; ")
      }`,
    );
  }
  return result;
}

/** A call through the SDK's `Client.callTool` (HTTP upstreams; tools with an output schema). */
async function callViaSdk(
  call: { connection: UpstreamConnection; tool: string; input: Record<string, unknown> },
  options: ToolCallOptions,
  handlers: CallEnds & {
    /** Answers the server's questions during the call; absent: a host round hands them back. */
    answer: AnswerInput | undefined;
    /** Top-level params beyond the tool and its arguments (a host round's). */
    params?: Record<string, unknown>;
  },
): Promise<ToolCallResult> {
  const { connection, tool, input } = call;
  const { onprogress, unwrap, answer, fail } = handlers;
  // A call-scoped controller: the SDK never removes its abort listener, so linking the run's
  // signal directly would send a stray notifications/cancelled for every finished call.
  const controller = new AbortController();
  const forwardAbort = () => controller.abort(options.signal.reason);
  options.signal.addEventListener("abort", forwardAbort, { once: true });
  let hitMaximum = false;
  const hardTimer = setTimeout(() => {
    hitMaximum = true;
    controller.abort(new Error(`exceeded ${options.callMaxMs} ms`));
  }, options.callMaxMs);
  try {
    const result = await connection.questions.run(
      answer,
      () =>
        connection.client.callTool({ ...handlers.params, name: tool, arguments: input }, {
          signal: controller.signal,
          timeout: options.callTimeoutMs,
          resetTimeoutOnProgress: true,
          maxTotalTimeout: options.callMaxMs,
          onprogress,
          // A host round's input-required answer goes back to the host as it is.
          ...(options.hostRound === undefined ? {} : { allowInputRequired: true }),
        }),
    );
    return unwrap(result as Record<string, unknown>);
  } catch (error) {
    if (error instanceof ToolCallError) throw error;
    return fail(error, {
      tool,
      options,
      hitMaximum,
      cancelUpstream: () => controller.abort(new Error(`exceeded ${options.callMaxMs} ms`)),
      connection,
    });
  } finally {
    clearTimeout(hardTimer);
    options.signal.removeEventListener("abort", forwardAbort);
  }
}

/**
 * SDK errors about one answer, not the connection: a malformed or unsupported result, the
 * server asking too often or for what the gateway does not offer.
 */
const RESULT_ERRORS: ReadonlySet<string> = new Set([
  SdkErrorCode.InvalidResult,
  SdkErrorCode.UnsupportedResultType,
  SdkErrorCode.InputRequiredRoundsExceeded,
  SdkErrorCode.CapabilityNotSupported,
]);

/** The failure kind and message for an error a call raised, in order of precedence. */
/** What a failed call was, for the failure's kind and message. */
interface FailureContext {
  tool: string;
  options: ToolCallOptions;
  hitMaximum: boolean;
  /** Tells the upstream to stop (the SDK does not when it enforces the maximum). */
  cancelUpstream: () => void;
  connection: UpstreamConnection;
}

function callFailure(
  host: McpCallHost,
  error: unknown,
  context: FailureContext,
): ToolCallError {
  const { tool, options } = context;
  const name = host.name;
  const what = `"${name}.${tool}"`;
  if (options.signal.aborted) {
    return new ToolCallError("Cancelled", `Call to ${what} was cancelled`, { cause: error });
  }
  const maxMessage =
    `Tool ${what} timed out: still running after the ${options.callMaxMs} ms maximum`;
  if (context.hitMaximum) return new ToolCallError("ToolTimeout", maxMessage, { cause: error });
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
    const data = error.data as { maxTotalTimeout?: unknown } | undefined;
    if (data?.maxTotalTimeout !== undefined) {
      // The SDK enforced the maximum on a progress notification without telling the server.
      context.cancelUpstream();
      return new ToolCallError("ToolTimeout", maxMessage, { cause: error });
    }
    return new ToolCallError(
      "ToolTimeout",
      `Tool ${what} timed out: no answer or progress for ${options.callTimeoutMs} ms`,
      { cause: error },
    );
  }
  if (error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed) {
    return new ToolCallError(
      "NamespaceUnavailable",
      `MCP server "${name}" went away during ${what}: ${host.unavailableReason()}`,
      { cause: error },
    );
  }
  const stepUp = host.stepUpScope();
  if (stepUp && (error instanceof InsufficientScopeError || /\b403\b/.test(messageOf(error)))) {
    // This call needs more than the grant allows; the rest of the namespace still works.
    return new ToolCallError(
      "ToolError",
      `Tool ${what} needs the OAuth scope "${stepUp}", beyond what "${name}" was granted: ` +
        `run gateway auth login ${name} to grant it`,
      { cause: error },
    );
  }
  const login = host.loginRequired(error);
  if (login) {
    // Tokens expired or were revoked and could not be refreshed: no call can succeed now.
    host.dropForLogin(context.connection, login);
    return new ToolCallError("NamespaceUnavailable", login.message, { cause: error });
  }
  if (error instanceof ProtocolError) {
    return new ToolCallError("ToolError", `Tool ${what} failed: ${error.message}`, {
      cause: error,
      upstreamError: upstreamErrorOf(error),
    });
  }
  if (error instanceof SdkError && RESULT_ERRORS.has(error.code)) {
    return new ToolCallError("ToolError", `Tool ${what} failed: ${error.message}`, {
      cause: error,
    });
  }
  // A transport failure (HTTP request refused, stdin gone): the connection is not usable.
  host.connectionLost(context.connection, `lost its connection: ${messageOf(error)}`);
  return new ToolCallError(
    "NamespaceUnavailable",
    `MCP server "${name}" went away during ${what}: ${messageOf(error)}`,
    { cause: error },
  );
}

/** The JSON-RPC error an upstream answered with, as it sent it. */
export function upstreamErrorOf(error: ProtocolError): UpstreamRpcError {
  return {
    code: error.code,
    message: error.message,
    ...(error.data === undefined ? {} : { data: error.data }),
  };
}
