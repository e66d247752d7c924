/**
 * Runs one script end to end: limits, sandbox, channel, output capture, classification of how
 * it ended, and the history write before the answer (SPEC §4, §5, §8, §9). Longer than 300
 * lines because a run's life is one state machine; splitting it would scatter its invariants.
 * @module
 */

import type { ExecConfig, PermissionSet } from "../config/gateway_config.ts";
import { isEmptyPermissionSet } from "../config/permission_flags.ts";
import type { DiscoveryData, RunnerToGateway, ToolMap } from "../protocol/channel_messages.ts";
import type {
  Attachment,
  Diagnostic,
  FailureKind,
  RunDocument,
  RunError,
} from "../protocol/run_document.ts";
import { ToolCallError, type ToolProgress } from "../protocol/tool_call.ts";
import { capForCaller, OutputCapture } from "./output_capture.ts";
import { classifyRunEnd } from "./run_outcome.ts";
import { RunReturns } from "./run_returns.ts";
import { GatewayTelemetry } from "../telemetry/gateway_telemetry.ts";
import {
  asModuleSyntaxError,
  explainRunError,
  type RunErrorContext,
  withoutRunPaths,
} from "./run_error_hints.ts";
import { watchMemory } from "../process/memory_watch.ts";
import {
  type PreparedScript,
  type PrepareScriptResult,
  toSourcePosition,
} from "./script_transform.ts";
import type { RunChannelServer } from "./run_channel_server.ts";
import { decidePermissions } from "./run_permissions.ts";
import { RunnerPool } from "./runner_pool.ts";
import type { ToolCallRecord } from "../store/run_history.ts";
import { type RunnerProcess, spawnRunner } from "./runner_process.ts";
import { moveMediaToAttachments } from "./media_result.ts";

/** What a caller asks for. Limits absent here come from `exec` config. */
export interface RunRequest {
  source: string;
  /** Inline snippets report their last expression as `result`; named scripts do not. */
  inline: boolean;
  /** The named script's name, for history. */
  name?: string;
  args: string[];
  stdin: string;
  cwd: string;
  client: string;
  permissions?: PermissionSet;
  timeoutMs?: number;
  check?: boolean;
  maxOutputBytes?: number;
  maxMemoryMb?: number;
  maxToolCalls?: number;
  callTimeoutMs?: number;
  /** Live output, for `run.output` notifications and TTY streaming. */
  onOutput?: (stream: "stdout" | "stderr", text: string) => void;
  /** Upstream progress of the run's tool calls, for `run.progress` notifications. */
  onProgress?: (progress: ToolProgress & { namespace: string; tool: string }) => void;
  /** The caller's W3C trace context; the run's span becomes its child. */
  traceparent?: string;
}

/** Everything history needs about a finished run beyond its document. */
export interface FinishedRun {
  document: RunDocument;
  request: RunRequest;
  startedAt: number;
  /** Full (history-capped) stdout and stderr. */
  stdout: string;
  stderr: string;
  /**
   * Bytes the run wrote to stdout and stderr in all, kept or not: larger than the kept text
   * when a flood was cut at capture, so history can say the stored text is capped.
   */
  stdoutBytes: number;
  stderrBytes: number;
  toolCalls: ToolCallRecord[];
  /** The whole result when the document carries a truncated one; history keeps it. */
  fullResult?: unknown;
}

/** A run in flight. */
export interface RunHandle {
  runId: string;
  done: Promise<RunDocument>;
  /** Stops the run: the process group is killed and the run ends `Cancelled`. */
  cancel(reason?: string): void;
  /** Stdout captured so far (for yielded runs). */
  stdoutSoFar(): string;
}

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

/** What the runner needs from the rest of the gateway; injected so it imports nothing upstream. */
export interface ScriptRunnerDeps {
  channel: RunChannelServer;
  runsDir: string;
  denoDir: string;
  /** Directories no run is granted, whatever it asks (the data dir). @default {[]} */
  deniedPaths?: readonly string[];
  /** Told the pid of every runner started (the process ledger). */
  onSpawn?: (pid: number) => void;
  /** Spans and metrics of runs (OpenTelemetry); absent or disabled costs nothing. */
  telemetry?: GatewayTelemetry;
  /** What kind of upstream serves a namespace ("local", "mcp"), for call spans. */
  upstreamOf?: (namespace: string) => string;
  exec: () => ExecConfig;
  /**
   * The root holding `gateway.json`: relative paths in `exec.permissions` and
   * `exec.maxPermissions` resolve against it. Without it such paths grant nothing.
   */
  configDir?: string;
  /** Bytes of stdout/stderr history keeps (`history.maxOutputBytes`); the capture keeps as much. */
  historyOutputBytes?: () => number;
  /** Resolves with the value to hand the script (unwrapped, or the envelope when `raw`). */
  callTool(call: ScriptToolCall): Promise<unknown>;
  resources(
    request: { namespace: string; op: "list" | "read"; uri?: string },
  ): Promise<unknown>;
  /** Resolves when the namespaces a run may call have finished starting (bounded). */
  catalogueReady(source: string): Promise<void>;
  toolMap(): ToolMap;
  discovery(): DiscoveryData;
  /** Parses the script and, for snippets, wraps its last expression (off the event loop). */
  prepare(source: string, inline: boolean): Promise<PrepareScriptResult>;
  /** Type-checks the prepared script; diagnostics point at the script's own lines. */
  check(prepared: PreparedScript): Promise<Diagnostic[]>;
  /** Writes the run to history; returns false when the write failed (the run still stands). */
  record(run: FinishedRun): boolean | Promise<boolean>;
  log(message: string): void;
}

/** Name of the global a snippet's last expression is handed to. */
export const RESULT_HOOK = "__gatewayResult";

/** A new run id: time-ordered (base-36 ms) then random, so ids sort by start. */
export function newRunId(): string {
  const time = Date.now().toString(36).padStart(9, "0");
  const random = Array.from(
    crypto.getRandomValues(new Uint8Array(6)),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
  return `${time}${random}`;
}

/** Used when no telemetry is given: every span is a no-op. */
const NO_TELEMETRY = new GatewayTelemetry({ enabled: false });

/** Grace between TERM and KILL when a run is stopped. */
const KILL_GRACE_MS = 500;

/** Starts runs, with a pool of ready runners for the default sandbox. */
export class ScriptRunner {
  readonly #deps: ScriptRunnerDeps;
  readonly #pool: RunnerPool;
  readonly #active = new Map<string, RunHandle>();
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(deps: ScriptRunnerDeps) {
    this.#deps = deps;
    const exec = deps.exec();
    this.#pool = new RunnerPool(
      exec.poolSize,
      () => this.#spawn({}, exec.maxMemoryMb, Deno.cwd()),
      {
        log: deps.log,
      },
    );
  }

  /** Pre-starts the pool. */
  warm(): void {
    this.#pool.fill();
  }

  /** Runs in flight, by id. */
  active(runId: string): RunHandle | undefined {
    return this.#active.get(runId);
  }

  /**
   * Waits for one of `exec.maxConcurrentRuns` turns (each run is a Deno process; a burst of a
   * thousand must not start a thousand). A cancelled run leaves the queue at once. Resolves
   * with the function that gives the turn back.
   */
  #turn(signal: AbortSignal): Promise<() => void> {
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.#running--;
      this.#waiting.shift()?.();
    };
    if (this.#running < this.#deps.exec().maxConcurrentRuns || signal.aborted) {
      this.#running++;
      return Promise.resolve(release);
    }
    return new Promise((resolve) => {
      const go = () => {
        signal.removeEventListener("abort", leave);
        this.#running++;
        resolve(release);
      };
      const leave = () => {
        const at = this.#waiting.indexOf(go);
        if (at >= 0) this.#waiting.splice(at, 1);
        this.#running++;
        resolve(release);
      };
      signal.addEventListener("abort", leave, { once: true });
      this.#waiting.push(go);
    });
  }

  /** Runs waiting for a turn. */
  get queuedCount(): number {
    return this.#waiting.length;
  }

  /** Number of runs in flight. */
  get activeCount(): number {
    return this.#active.size;
  }

  #spawn(permissions: PermissionSet, maxMemoryMb: number, cwd: string): Promise<RunnerProcess> {
    const env: Record<string, string> = {};
    if (Array.isArray(permissions.env)) {
      for (const name of permissions.env) {
        const value = Deno.env.get(name);
        if (value !== undefined) env[name] = value;
      }
    } else if (permissions.env === true) Object.assign(env, Deno.env.toObject());
    // PATH is always there (the script cannot read it without --allow-env): without it Deno
    // fails `new Deno.Command("ls")` as NotFound before it checks the run permission, and the
    // script would see a missing program instead of PermissionDenied naming "run".
    env.PATH ??= Deno.env.get("PATH") ?? "/usr/bin:/bin";
    return spawnRunner({
      channel: this.#deps.channel,
      runsDir: this.#deps.runsDir,
      permissions,
      maxMemoryMb,
      cwd,
      env,
      denoDir: this.#deps.denoDir,
      ...(this.#deps.deniedPaths ? { deniedPaths: this.#deps.deniedPaths } : {}),
      ...(this.#deps.onSpawn ? { onSpawn: this.#deps.onSpawn } : {}),
    });
  }

  /** Starts a run; the handle's `done` resolves with its document, after history is written. */
  start(request: RunRequest): RunHandle {
    const runId = newRunId();
    const controller = new AbortController();
    let cancelReason: string | null = null;
    let stdoutCapture: OutputCapture | null = null;
    const handle: RunHandle = {
      runId,
      done: Promise.resolve() as unknown as Promise<RunDocument>,
      cancel: (reason = "cancelled by request") => {
        if (cancelReason === null) cancelReason = reason;
        controller.abort();
      },
      stdoutSoFar: () => stdoutCapture?.text() ?? "",
    };
    this.#active.set(runId, handle);
    handle.done = this.#turn(controller.signal).then((release) =>
      this.#execute(runId, request, {
        signal: controller.signal,
        cancelReason: () => cancelReason,
        onCapture: (capture) => (stdoutCapture = capture),
      }).finally(release)
    ).finally(() => {
      this.#active.delete(runId);
      this.#pool.fill();
    });
    return handle;
  }

  async #execute(
    runId: string,
    request: RunRequest,
    control: {
      signal: AbortSignal;
      cancelReason: () => string | null;
      onCapture: (capture: OutputCapture) => void;
    },
  ): Promise<RunDocument> {
    const startedAt = Date.now();
    const exec = this.#deps.exec();
    const runTrace = (this.#deps.telemetry ?? NO_TELEMETRY).startRun({
      runId,
      client: request.client,
      ...(request.name ? { name: request.name } : {}),
      ...(request.traceparent ? { traceparent: request.traceparent } : {}),
    });
    const maxOutputBytes = request.maxOutputBytes ?? exec.maxOutputBytes;
    const historyCap = Math.max(maxOutputBytes, this.#deps.historyOutputBytes?.() ?? 1_048_576);
    const toolCalls: ToolCallRecord[] = [];
    const finish = async (
      partial: Partial<RunDocument> & { ok: boolean },
      output: { stdout: string; stderr: string; stdoutTotal?: number; stderrTotal?: number } = {
        stdout: "",
        stderr: "",
      },
      fullResult?: unknown,
    ): Promise<RunDocument> => {
      const out = capForCaller("stdout", output.stdout, {
        total: output.stdoutTotal,
        maxBytes: maxOutputBytes,
        runId,
      });
      const err = capForCaller("stderr", output.stderr, {
        total: output.stderrTotal,
        maxBytes: maxOutputBytes,
        runId,
      });
      const document: RunDocument = {
        runId,
        ok: partial.ok,
        stdout: out.text,
        stderr: err.text,
        exitCode: partial.exitCode ?? null,
        durationMs: Date.now() - startedAt,
        toolCalls: toolCalls.length,
        stdoutTruncated: out.truncated,
        warnings: partial.warnings ?? [],
        attachments: partial.attachments ?? [],
        ...(partial.result !== undefined ? { result: partial.result } : {}),
        ...(partial.resultTruncated ? { resultTruncated: true } : {}),
        ...(partial.error ? { error: partial.error } : {}),
      };
      const saved = await runTrace.step("gateway.history_write", () =>
        this.#deps.record({
          document,
          request,
          startedAt,
          stdout: output.stdout,
          stderr: output.stderr,
          stdoutBytes: out.total,
          stderrBytes: err.total,
          toolCalls,
          ...(fullResult !== undefined ? { fullResult } : {}),
        }));
      document.history = saved ? "saved" : "failed";
      runTrace.end({
        ok: document.ok,
        ...(document.error ? { kind: document.error.kind } : {}),
        toolCalls: document.toolCalls,
        durationMs: document.durationMs,
      });
      return document;
    };
    const earlyWarnings: string[] = [];
    const hintContext = (): RunErrorContext => ({
      source: request.source,
      toolMap: this.#deps.toolMap(),
      limits: {
        timeoutMs: request.timeoutMs ?? exec.timeoutMs,
        callTimeoutMs: request.callTimeoutMs ?? exec.callTimeoutMs,
        maxToolCalls: request.maxToolCalls ?? exec.maxToolCalls,
        maxMemoryMb: request.maxMemoryMb ?? exec.maxMemoryMb,
      },
      ceiling: exec.maxPermissions,
      configDir: this.#deps.configDir ?? null,
      cwd: request.cwd,
    });
    /** The failure with its fix; a hint that cannot be built never costs the run its answer. */
    const explain = (error: RunError, steps: (error: RunError) => RunError = (e) => e) => {
      try {
        return explainRunError(steps(error), hintContext());
      } catch (cause) {
        this.#deps.log(`Cannot explain a ${error.kind} failure: ${(cause as Error).message}`);
        return error;
      }
    };
    const failEarly = (error: RunError) =>
      finish({ ok: false, error: explain(error), exitCode: null, warnings: earlyWarnings });

    if (new TextEncoder().encode(request.source).length > exec.maxSourceBytes) {
      return failEarly({
        kind: "ScriptError",
        message: `Script is larger than exec.maxSourceBytes (${exec.maxSourceBytes} bytes): ` +
          `shorten it or raise the limit in gateway.json`,
      });
    }
    const decision = decidePermissions(request.permissions, {
      defaults: exec.permissions,
      ceiling: exec.maxPermissions,
      cwd: request.cwd,
      configDir: this.#deps.configDir ?? null,
      protectedPaths: this.#deps.deniedPaths ?? [],
    });
    if (!decision.ok) return failEarly({ kind: "PermissionRefused", message: decision.message });
    await this.#deps.catalogueReady(request.source);
    const prepared = await this.#deps.prepare(request.source, request.inline);
    if (prepared.kind === "SyntaxError") {
      return failEarly({
        kind: "SyntaxError",
        message: prepared.message,
        line: prepared.line,
        column: prepared.column,
      });
    }
    earlyWarnings.push(...prepared.warnings ?? []);
    // Stack positions are in the prepared code: map them back to the author's text.
    const toSource = (error: RunError): RunError => {
      if (error.line === undefined || error.column === undefined) return error;
      const at = toSourcePosition(prepared, { line: error.line, column: error.column });
      return { ...error, line: at.line, column: at.column };
    };
    const typeChecked = request.check ?? exec.typecheck;
    if (typeChecked) {
      let diagnostics: Diagnostic[];
      try {
        diagnostics = await runTrace.step("gateway.typecheck", () => this.#deps.check(prepared));
      } catch (error) {
        return failEarly({
          kind: "CheckFailed",
          message: `The type checker is unavailable (${
            (error as Error).message
          }): run with --no-check`,
        });
      }
      if (diagnostics.length > 0) {
        const first = diagnostics[0]!;
        return failEarly({
          kind: "CheckFailed",
          message: `Type check failed (${diagnostics.length} error${
            diagnostics.length === 1 ? "" : "s"
          }); line ${first.line}:${first.column}: ${first.message}`,
          line: first.line,
          column: first.column,
          diagnostics,
        });
      }
    }
    if (control.signal.aborted) {
      return failEarly({ kind: "Cancelled", message: control.cancelReason() ?? "cancelled" });
    }

    const maxMemoryMb = request.maxMemoryMb ?? exec.maxMemoryMb;
    const pooled = isEmptyPermissionSet(decision.permissions) && maxMemoryMb === exec.maxMemoryMb;
    let runner: RunnerProcess;
    try {
      runner = pooled
        ? await this.#pool.take()
        : await this.#spawn(decision.permissions, maxMemoryMb, request.cwd);
    } catch (error) {
      // A run that cannot start still answers, and is recorded, as a typed failure.
      return failEarly({
        kind: "Crashed",
        message: `Cannot start the runner in "${request.cwd}": ${(error as Error).message}`,
      });
    }
    try {
      await Deno.writeTextFile(runner.scriptPath, prepared.code, { mode: 0o600 });
    } catch (error) {
      await runner.kill(0);
      Deno.remove(runner.dir, { recursive: true }).catch(() => undefined);
      return failEarly({
        kind: "Crashed",
        message: `Cannot write the script for the runner: ${(error as Error).message}`,
      });
    }

    const stdout = new OutputCapture(historyCap, {
      ...(request.onOutput ? { onText: (t: string) => request.onOutput!("stdout", t) } : {}),
    });
    const stderr = new OutputCapture(historyCap, {
      ...(request.onOutput ? { onText: (t: string) => request.onOutput!("stderr", t) } : {}),
    });
    control.onCapture(stdout);
    const drained = Promise.all([
      stdout.drain(runner.child.stdout),
      stderr.drain(runner.child.stderr),
    ]);

    let ending: { kind: FailureKind; message: string } | null = null;
    const stop = (kind: FailureKind, message: string) => {
      if (ending) return;
      ending = { kind, message };
      runner.kill(KILL_GRACE_MS);
    };
    const timeoutMs = request.timeoutMs ?? exec.timeoutMs;
    const deadline = Date.now() + timeoutMs;
    const timer = setTimeout(
      () => stop("Timeout", `Run exceeded its ${timeoutMs} ms timeout and was stopped`),
      timeoutMs,
    );
    const onAbort = () => stop("Cancelled", control.cancelReason() ?? "cancelled by request");
    control.signal.addEventListener("abort", onAbort);
    // A cancel that came while the runner was starting has fired already: honour it now.
    if (control.signal.aborted) onAbort();
    const memoryWatch = watchMemory(runner.child.pid, maxMemoryMb, () =>
      stop(
        "MemoryLimit",
        `Run exceeded its memory limit of ${maxMemoryMb} MB (resident) and was stopped`,
      ));

    const calls = new AbortController();
    const returns = new RunReturns({
      maxResultBytes: maxOutputBytes,
      maxAttachments: exec.maxAttachments,
      maxAttachmentBytes: exec.maxAttachmentBytes,
      maxWarnings: exec.maxWarnings,
    });
    for (const warning of earlyWarnings) returns.addWarning(warning);
    let failure: Extract<RunnerToGateway, { t: "failed" }>["error"] | null = null;
    let callCount = 0;
    let inFlight = 0;
    const pendingCalls = new Map<number, Extract<RunnerToGateway, { t: "call" }>>();
    const queue: (() => void)[] = [];
    const maxToolCalls = request.maxToolCalls ?? exec.maxToolCalls;
    const callTimeoutMs = request.callTimeoutMs ?? exec.callTimeoutMs;

    const connected = await Promise.race([
      runner.connection,
      runner.child.status.then(() => null),
      new Promise<null>((r) => setTimeout(() => r(null), 15_000)),
    ]);
    if (connected) {
      connected.onMessage((message) => {
        switch (message.t) {
          case "result":
            returns.setResult(message.value);
            break;
          case "warning":
            returns.addWarning(String(message.message));
            break;
          case "attach":
            returns.addAttachment(message.block as Attachment);
            break;
          case "failed":
            failure = message.error;
            break;
          case "resources":
            this.#deps.resources(message).then(
              (value) => connected.send({ t: "reply", id: message.id, ok: true, value }),
              (error) =>
                connected.send({
                  t: "reply",
                  id: message.id,
                  ok: false,
                  error: toChannelError(error, message.namespace, "resources"),
                }),
            );
            break;
          case "call": {
            callCount++;
            if (callCount > maxToolCalls) {
              connected.send({
                t: "reply",
                id: message.id,
                ok: false,
                error: {
                  kind: "ToolCallLimitExceeded",
                  message:
                    `Run exceeded exec.maxToolCalls (${maxToolCalls}) at ${message.namespace}.${message.tool}`,
                  namespace: message.namespace,
                  tool: message.tool,
                },
              });
              return;
            }
            const go = () => {
              pendingCalls.set(message.id, message);
              inFlight++;
              const callStarted = Date.now();
              let approval: ToolCallRecord["approval"] = null;
              const callTrace = runTrace.call(
                message.namespace,
                message.tool,
                this.#deps.upstreamOf?.(message.namespace) ?? "unknown",
              );
              GatewayTelemetry.within(callTrace.context, () =>
                this.#deps.callTool({
                  runId,
                  deadline,
                  onApproval: (decision) => (approval = decision),
                  namespace: message.namespace,
                  tool: message.tool,
                  args: message.args,
                  raw: message.raw,
                  argsChecked: typeChecked,
                  signal: calls.signal,
                  callTimeoutMs,
                  ...(request.onProgress
                    ? {
                      onProgress: (p: ToolProgress) =>
                        request.onProgress!({
                          ...p,
                          namespace: message.namespace,
                          tool: message.tool,
                        }),
                    }
                    : {}),
                })).then(
                  (value) => {
                    callTrace.end({ ok: true });
                    toolCalls.push({
                      namespace: message.namespace,
                      tool: message.tool,
                      startedAt: callStarted,
                      durationMs: Date.now() - callStarted,
                      ok: true,
                      errorKind: null,
                      ...(approval ? { approval } : {}),
                      ...callResultOf({ value }),
                    });
                    connected.send({ t: "reply", id: message.id, ok: true, value });
                  },
                  (error) => {
                    const channelError = toChannelError(error, message.namespace, message.tool);
                    callTrace.end({ ok: false, kind: channelError.kind });
                    toolCalls.push({
                      namespace: message.namespace,
                      tool: message.tool,
                      startedAt: callStarted,
                      durationMs: Date.now() - callStarted,
                      ok: false,
                      errorKind: channelError.kind,
                      ...(approval ? { approval } : {}),
                      ...callResultOf({ text: channelError.message }),
                    });
                    connected.send({
                      t: "reply",
                      id: message.id,
                      ok: false,
                      error: channelError,
                      ...(error instanceof ToolCallError && error.raw ? { raw: error.raw } : {}),
                    });
                  },
                ).finally(() => {
                  pendingCalls.delete(message.id);
                  inFlight--;
                  queue.shift()?.();
                });
            };
            // Calls past the per-run concurrency cap wait their turn; they do not fail.
            if (inFlight < exec.maxConcurrentCalls) go();
            else queue.push(go);
            break;
          }
          default:
            break;
        }
      });
      connected.send({
        t: "run",
        runId,
        scriptPath: runner.scriptPath,
        args: request.args,
        stdin: request.stdin,
        toolMap: this.#deps.toolMap(),
        resultHook: RESULT_HOOK,
        ...(/\b(search|describe)\s*\(/.test(request.source)
          ? { discovery: this.#deps.discovery() }
          : {}),
      });
    } else if (!ending) {
      stop("Crashed", "The runner did not connect to the gateway");
    }

    const status = await runner.child.status;
    clearTimeout(timer);
    memoryWatch.stop();
    control.signal.removeEventListener("abort", onAbort);
    calls.abort();
    await runner.kill(0);
    await Promise.race([drained, new Promise((r) => setTimeout(r, 1000))]);
    if (connected) {
      await Promise.race([connected.closed, new Promise((r) => setTimeout(r, 200))]);
      connected.close();
    }
    Deno.remove(runner.dir, { recursive: true }).catch(() => undefined);

    const output = {
      stdout: stdout.text(),
      stderr: stderr.text(),
      stdoutTotal: stdout.totalBytes,
      stderrTotal: stderr.totalBytes,
    };
    const classified = classifyRunEnd({
      ending,
      failure,
      status,
      stderr: output.stderr,
      connected: connected !== null,
    });
    // A run stopped while it waited on a tool call was at that call's line.
    const waiting = [...pendingCalls.values()][0];
    const located = classified !== null && classified.line === undefined &&
        waiting?.line !== undefined && (classified.kind === "Timeout" ||
          classified.kind === "Cancelled" || classified.kind === "MemoryLimit")
      ? {
        ...classified,
        message: `${classified.message} while waiting for ${waiting.namespace}.${waiting.tool} ` +
          `(line ${waiting.line})`,
        line: waiting.line,
      }
      : classified;
    const error = located === null
      ? null
      : explain(located, (e) => toSource(asModuleSyntaxError(withoutRunPaths(e, runner))));
    if (error === null && request.inline && returns.fullResult !== undefined) {
      // Images and audio in the result travel as attachments, a placeholder in their place.
      const media: Attachment[] = [...returns.attachments];
      const before = media.length;
      returns.setResult(moveMediaToAttachments(returns.fullResult, media));
      for (const block of media.slice(before)) returns.addAttachment(block);
    }
    const bounded = returns.bounded(runId, { includeResult: error === null && request.inline });
    return finish(
      {
        ok: error === null,
        exitCode: status.code,
        ...bounded,
        ...(error ? { error } : {}),
      },
      output,
      bounded.resultTruncated ? returns.fullResult : undefined,
    );
  }

  /** Cancels every run and ends the pool. */
  async close(): Promise<void> {
    const runs = [...this.#active.values()];
    for (const run of runs) run.cancel("the gateway is shutting down");
    await Promise.allSettled(runs.map((r) => r.done));
    await this.#pool.close();
  }
}

/** Most characters of a call's result a run holds for history, which keeps fewer still. */
const CALL_RESULT_HEAD_CHARS = 16_384;

/**
 * A call's result for its history record: the JSON text of what it answered (`value`), or the
 * message of its error as written (`text`). Only a head is held until the run ends, with the
 * whole size when cut, so a call answering megabytes costs the run no megabytes more.
 */
function callResultOf(
  answer: { value: unknown } | { text: string },
): Pick<ToolCallRecord, "result" | "resultTotalBytes"> {
  let text: string | undefined;
  if ("text" in answer) text = answer.text;
  else {
    try {
      text = JSON.stringify(answer.value);
    } catch (error) {
      text = `[result not JSON: ${error instanceof Error ? error.message : String(error)}]`;
    }
  }
  if (text === undefined) return {};
  if (text.length <= CALL_RESULT_HEAD_CHARS) return { result: text };
  return {
    result: text.slice(0, CALL_RESULT_HEAD_CHARS),
    resultTotalBytes: new TextEncoder().encode(text).length,
  };
}

function toChannelError(error: unknown, namespace: string, tool: string) {
  if (error instanceof ToolCallError) {
    return { kind: error.kind, message: error.message, namespace, tool };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { kind: "ToolError", message, namespace, tool };
}
