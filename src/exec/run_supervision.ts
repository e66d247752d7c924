/**
 * A run's life while its runner process lives: the script handed over on the channel, the call
 * broker answering it, the run's timeout, cancel and memory limit enforced by stopping the
 * process group, its output captured, and how it ended classified
 * (docs/architecture.md#limits). Knows nothing of preflight or history.
 * @module
 */

import type { ExecConfig } from "../config/gateway_config.ts";
import {
  ChannelMethod,
  type DiscoveryData,
  type RunMessage,
  type ToolMap,
} from "../protocol/channel_messages.ts";
import type { FailureKind, RunError } from "../protocol/run_document.ts";
import type { RunTrace } from "../telemetry/gateway_telemetry.ts";
import { watchMemory } from "../process/memory_watch.ts";
import { settlesWithin } from "../process/terminate_process_group.ts";
import { CallBroker, type CallBrokerOptions, type CallMessage } from "./call_broker.ts";
import { OutputCapture } from "./output_capture.ts";
import { classifyRunEnd } from "./run_outcome.ts";
import type { RunOutput } from "./run_finish.ts";
import type { RunRequest } from "./run_request.ts";
import { RunReturns } from "./run_returns.ts";
import type { RunnerProcess } from "./runner_process.ts";
import type { RunnerConnection } from "./run_channel_server.ts";
import type { ScriptUsage } from "./script_analysis.ts";
import { typedToolName } from "../protocol/typed_tool_name.ts";

/** Name of the global a snippet's last expression is handed to. */
export const RESULT_HOOK = "__gatewayResult";

/** Grace between TERM and KILL when a run is stopped. */
const KILL_GRACE_MS = 500;

/** How a run is cancelled and how it shows its output so far, from its handle. */
export interface RunControl {
  signal: AbortSignal;
  cancelReason: () => string | null;
  onCapture: (capture: OutputCapture) => void;
}

/** What supervision needs from the rest of the gateway. */
export interface SupervisionDeps {
  callTool: CallBrokerOptions["callTool"];
  resources: CallBrokerOptions["resources"];
  upstreamOf?: (namespace: string) => string;
  toolMap(): ToolMap;
  discovery(): DiscoveryData;
}

/** Options of {@linkcode superviseRun}. */
export interface SupervisionOptions {
  runId: string;
  request: RunRequest;
  exec: ExecConfig;
  control: RunControl;
  /**
   * Where the runner finds the prepared script, what the script uses (from its AST), and
   * whether its runner may exit without the runtime's teardown ({@linkcode mayExitAtEnd}).
   */
  code: { scriptPath: string; usage: ScriptUsage; exitAtEnd: boolean };
  typeChecked: boolean;
  /** Resident megabytes past which the run is stopped as `MemoryLimit`. */
  maxMemoryMb: number;
  /** Warnings from before the run (preflight), first in the document's list. */
  warnings: readonly string[];
  /** Bytes of stdout and stderr kept for history. */
  historyCap: number;
  trace: RunTrace;
  deps: SupervisionDeps;
  /** Told the run's broker once the runner has connected, so the finish sees its calls. */
  onBroker(broker: CallBroker): void;
}

/** How the runner process ended and what the run produced. */
export interface SupervisedRun {
  status: Deno.CommandStatus;
  output: Required<RunOutput>;
  returns: RunReturns;
  /** How the run failed, at the waiting call's line when stopped during one; null when ok. */
  failure: RunError | null;
  /**
   * Resolves once the runner's process group is gone and its files are removed; a run that
   * ended by itself is answered before that. Never rejects.
   */
  reaped: Promise<void>;
}

/**
 * Supervises `runner` from hand-over to exit and cleans up after it (process group, run
 * directory, channel); resolves once the process has exited and its output is drained.
 */
export async function superviseRun(
  runner: RunnerProcess,
  options: SupervisionOptions,
): Promise<SupervisedRun> {
  const { runId, request, exec, control, code, typeChecked, historyCap, trace, deps } = options;
  const timeoutMs = request.timeoutMs ?? exec.timeoutMs;
  const deadline = Date.now() + timeoutMs;
  const returns = new RunReturns({
    maxResultBytes: request.maxOutputBytes ?? exec.maxOutputBytes,
    maxAttachments: exec.maxAttachments,
    maxAttachmentBytes: exec.maxAttachmentBytes,
    maxWarnings: exec.maxWarnings,
  });
  for (const warning of options.warnings) returns.addWarning(warning);

  // Set in `handOver`, which TypeScript's narrowing does not follow.
  let broker = null as CallBroker | null;
  /** Starts the broker and hands the runner its run. */
  const handOver = (connection: RunnerConnection) => {
    broker = new CallBroker({
      runId,
      connection: connection.peer,
      returns,
      maxToolCalls: request.maxToolCalls ?? exec.maxToolCalls,
      maxConcurrentCalls: exec.maxConcurrentCalls,
      callTimeoutMs: request.callTimeoutMs ?? exec.callTimeoutMs,
      deadline,
      argsChecked: typeChecked,
      callTool: (call) => deps.callTool(call),
      resources: (resources) => deps.resources(resources),
      trace,
      ...(deps.upstreamOf ? { upstreamOf: deps.upstreamOf } : {}),
      typedName: (namespace, tool) => typedToolName(deps.toolMap(), namespace, tool),
      ...(request.onProgress ? { onProgress: request.onProgress } : {}),
    });
    options.onBroker(broker);
    const run: RunMessage = {
      runId,
      scriptPath: code.scriptPath,
      args: request.args,
      stdin: request.stdin,
      toolMap: deps.toolMap(),
      resultHook: RESULT_HOOK,
      ...(code.usage.discovery ? { discovery: deps.discovery() } : {}),
      ...(code.exitAtEnd ? { exitAtEnd: true } : {}),
    };
    connection.peer.notify(ChannelMethod.run, run);
  };
  // A pooled runner is connected already: it gets its run before the rest is set up, in the
  // same turn (nothing it sends back is read before that is done), so its start overlaps this
  // work. Not when the run was cancelled while it waited for the runner.
  const early = control.signal.aborted ? null : runner.ready ?? null;
  if (early) handOver(early);

  const stdout = new OutputCapture(historyCap, {
    endMarker: runner.endMarker,
    ...(request.onOutput ? { onText: (t: string) => request.onOutput!("stdout", t) } : {}),
  });
  const stderr = new OutputCapture(historyCap, {
    endMarker: runner.endMarker,
    ...(request.onOutput ? { onText: (t: string) => request.onOutput!("stderr", t) } : {}),
  });
  control.onCapture(stdout);
  const drained = Promise.all([
    stdout.drain(runner.child.stdout),
    stderr.drain(runner.child.stderr),
  ]);

  let ending: { kind: FailureKind; message: string } | null = null;
  // The call the run waited on when it was stopped: taken now, while its channel is open (the
  // channel's closing, once the runner is killed, ends every request it served).
  let waitingAtStop: CallMessage | undefined;
  const stop = (kind: FailureKind, message: string) => {
    if (ending) return;
    ending = { kind, message };
    waitingAtStop = broker?.waitingCall();
    runner.kill(KILL_GRACE_MS);
  };
  const timer = setTimeout(
    () => stop("Timeout", `Run exceeded its ${timeoutMs} ms timeout and was stopped`),
    timeoutMs,
  );
  const onAbort = () => stop("Cancelled", control.cancelReason() ?? "cancelled by request");
  control.signal.addEventListener("abort", onAbort);
  // A cancel that came while the runner was starting has fired already: honour it now.
  if (control.signal.aborted) onAbort();
  const memoryWatch = watchMemory(runner.memoryPid, options.maxMemoryMb, () =>
    stop(
      "MemoryLimit",
      `Run exceeded its memory limit of ${options.maxMemoryMb} MB (resident) and was stopped`,
    ));

  // The wait's timer is cleared as soon as the race is decided: left to run, it kept the whole
  // run (runner, pipes, buffers, broker) alive for its 15 s, so the server's memory
  // grew with the rate of runs.
  let connectTimer: ReturnType<typeof setTimeout> | undefined;
  const connected = early ?? runner.ready ?? await Promise.race([
    runner.connection,
    runner.status.then(() => null),
    new Promise<null>((r) => (connectTimer = setTimeout(() => r(null), CONNECT_LIMIT_MS))),
  ]);
  clearTimeout(connectTimer);
  if (connected) {
    if (!early) handOver(connected);
  } else if (!ending) {
    stop("Crashed", "The runner did not connect to the gateway");
  }

  // The run is over when the runner has ended it (both end markers read and its channel
  // closed: everything it wrote is in), or when its process has exited, whichever is first.
  const exited = runner.status.then((status) => ({ status, ended: false }));
  const ended = connected
    ? Promise.all([stdout.ended, stderr.ended, connected.closed]).then(([out, err]) =>
      out !== null && out === err ? { status: endedStatus(out), ended: true } : exited
    )
    : exited;
  let over = await Promise.race([exited, ended]);
  let teardown: Promise<void> | null = null;
  if (!over.ended) {
    // The process is gone. A runner exits right after writing its end markers (runner_main's
    // unload listener), so its exit is often seen before they are read, though they are in
    // the pipes already: the ending they give still wins when it comes before the teardown
    // (its group KILLed, its pipes and channel read to their end) is done, and the run is
    // answered without waiting for that (it would delay every answer).
    teardown = (async () => {
      await runner.kill(0);
      // Bounded only against a reader that never finishes; a loaded machine can take a
      // while, and output read after the answer would reach the caller after its result.
      await settlesWithin(drained, DRAIN_LIMIT_MS);
      if (connected) await settlesWithin(connected.closed, CHANNEL_CLOSE_LIMIT_MS);
    })();
    const late = await Promise.race([ended, teardown.then(() => null)]);
    if (late?.ended) over = late;
  }
  const status = over.status;
  const waiting = waitingAtStop ?? broker?.waitingCall();
  clearTimeout(timer);
  memoryWatch.stop();
  control.signal.removeEventListener("abort", onAbort);
  broker?.stop();
  let reaped: Promise<void>;
  if (over.ended) {
    connected?.close();
    // Answered without waiting for the process to be torn down: it is reaped (its group
    // KILLed), its pipes read to their end and its files removed after the answer.
    reaped = teardown ?? reap(runner, drained, REAP_WAIT_MS);
  } else {
    // No end markers: what it wrote is all in the pipes and the socket once the teardown has
    // read them to the end (the kill removed its files).
    await teardown;
    connected?.close();
    reaped = Promise.resolve();
  }

  const output = {
    stdout: stdout.text(),
    stderr: stderr.text(),
    stdoutTotal: stdout.totalBytes,
    stderrTotal: stderr.totalBytes,
  };
  const classified = classifyRunEnd({
    ending,
    failure: broker?.failure ?? null,
    status,
    stderr: output.stderr,
    connected: connected !== null,
  });
  // A run stopped while it waited on a tool call was at that call's line.
  const failure = classified !== null && classified.line === undefined &&
      waiting?.line !== undefined && (classified.kind === "Timeout" ||
        classified.kind === "Cancelled" || classified.kind === "MemoryLimit")
    ? {
      ...classified,
      message: `${classified.message} while waiting for ${waiting.namespace}.${waiting.tool} ` +
        `(line ${waiting.line})`,
      line: waiting.line,
    }
    : classified;
  return { status, output, returns, failure, reaped };
}

/**
 * Whether the runner of `code` (the prepared script) may end its process with `Deno.exit` once
 * the last `unload` listener has run, which skips the runtime's teardown (CPU on every
 * run). `Deno.exit` does not emit Node's `process` `exit` event, so a script that
 * names `process`, imports anything (a module may hook it) or calls `require` is left to
 * end as before. A plain text test: it errs only towards the teardown.
 */
export function mayExitAtEnd(code: string): boolean {
  return !/process|import|require/.test(code);
}

/** The exit status a runner's end marker stands for (it exited by itself with `code`). */
function endedStatus(code: number): Deno.CommandStatus {
  return { success: code === 0, code, signal: null };
}

/**
 * After a run that ended by itself: waits up to `exitWaitMs` for the runner to exit (then
 * TERM, KILL after the grace), KILLs what is left of its group, reads its pipes to their end
 * and removes its files. Never rejects.
 */
async function reap(
  runner: RunnerProcess,
  drained: Promise<unknown>,
  exitWaitMs: number,
): Promise<void> {
  // The kill removes the script and its compiled copy, which Deno keeps in its cache under the
  // script's path (one per run would pile up for ever), once the group is dead.
  await runner.kill(KILL_GRACE_MS, exitWaitMs);
  await settlesWithin(drained, DRAIN_LIMIT_MS);
}

/** Longest wait for a started runner to connect and present its token. */
const CONNECT_LIMIT_MS = 15_000;
/** Longest wait for a runner that wrote its end markers to exit before it is stopped. */
const REAP_WAIT_MS = 1_000;
/** Longest wait for a dead runner's stdout and stderr to be read to the end. */
const DRAIN_LIMIT_MS = 5_000;
/** Longest wait for a dead runner's last channel messages (its result) to be read. */
const CHANNEL_CLOSE_LIMIT_MS = 2_000;
