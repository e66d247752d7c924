/**
 * Runs one script end to end: a turn among `exec.maxConcurrentRuns`, preflight
 * (`run_preflight.ts`), a runner from the pool or spawned for the run's sandbox, the run
 * supervised (timeout, cancel, memory limit, output capture, the call broker on its channel),
 * how it ended classified, and the finish with its history write before the answer
 * (`run_finish.ts`).
 * @module
 */

import type { ExecConfig, PermissionSet } from "../config/gateway_config.ts";
import { isEmptyPermissionSet } from "../config/permission_flags.ts";
import type { DiscoveryData, ToolMap } from "../protocol/channel_messages.ts";
import type { Attachment, Diagnostic, RunDocument, RunError } from "../protocol/run_document.ts";
import type { OutputCapture } from "./output_capture.ts";
import { GatewayTelemetry } from "../telemetry/gateway_telemetry.ts";
import type { OsSandbox } from "../process/os_sandbox.ts";
import { asModuleSyntaxError, withoutRunPaths } from "./run_error_hints.ts";
import {
  type PreparedScript,
  type PrepareScriptResult,
  toSourcePosition,
} from "./script_transform.ts";
import type { RunChannelServer } from "./run_channel_server.ts";
import { RunnerPool } from "./runner_pool.ts";
import { compiledCopyDir, type RunnerProcess, spawnRunner } from "./runner_process.ts";
import { RunnerModuleCache } from "./runner_module_cache.ts";
import { RunnerSlots } from "./runner_slots.ts";
import { RunStorageSweep } from "./run_storage_sweep.ts";
import { moveMediaToAttachments } from "./media_result.ts";
import type { CallBroker, ResourcesRequest, ScriptToolCall } from "./call_broker.ts";
import { preflight } from "./run_preflight.ts";
import { rememberRecentAnswers } from "./recent_answers.ts";
import { RunFinish } from "./run_finish.ts";
import type { FinishedRun, RunRequest } from "./run_request.ts";
import { type ScriptUsage, USES_EVERYTHING } from "./script_analysis.ts";
import { Semaphore } from "./semaphore.ts";
import { mayExitAtEnd, RESULT_HOOK, type RunControl, superviseRun } from "./run_supervision.ts";

export { RESULT_HOOK };
export type { FinishedRun, RunRequest, ScriptToolCall };

/** A run in flight. */
export interface RunHandle {
  runId: string;
  done: Promise<RunDocument>;
  /** Stops the run: the process group is killed and the run ends `Cancelled`. */
  cancel(reason?: string): void;
  /** Stdout captured so far (for yielded runs). */
  stdoutSoFar(): string;
}

/** What the runner needs from the rest of the gateway; injected so it imports nothing upstream. */
export interface ScriptRunnerDeps {
  channel: RunChannelServer;
  runsDir: string;
  denoDir: string;
  /** Directories no run is granted, whatever it asks (the data dir). @default {[]} */
  deniedPaths?: readonly string[];
  /** The operating-system layer under Deno's permissions (`exec.osSandbox`). */
  sandbox?: OsSandbox;
  /**
   * Directories the OS sandbox never shows a run (the data dirs, the run scratch space).
   * @default {[]}
   */
  hiddenPaths?: readonly string[];
  /** Told the pid of every runner started, once it has connected (the process ledger). */
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
  resources(request: ResourcesRequest): Promise<unknown>;
  /**
   * Resolves when the namespaces a run may call have finished starting (bounded); `usage` is
   * what the script uses, read from its AST (`namespacesUsed` turns it into namespace names).
   */
  catalogueReady(source: string, usage: ScriptUsage): Promise<void>;
  toolMap(): ToolMap;
  /** The top-level fields of a tool's output, for hints about an object used as an array. */
  outputFields?: (namespace: string, tool: string) => string[] | null;
  discovery(): DiscoveryData;
  /** Parses the script and, for snippets, wraps its last expression (off the event loop). */
  prepare(source: string, inline: boolean): Promise<PrepareScriptResult>;
  /** Type-checks the prepared script; diagnostics point at the script's own lines. */
  check(prepared: PreparedScript): Promise<Diagnostic[]>;
  /** Whether the type checker is warm (see `PreflightDeps.checkerWarm`); absent = always. */
  checkerWarm?: () => boolean;
  /** Starts the type checker's warm-up without waiting for it. */
  startChecker?: () => void;
  /** Writes the run to history; returns false when the write failed (the run still stands). */
  record(run: FinishedRun): boolean | Promise<boolean>;
  log(message: string): void;
}

/** A new run id: time-ordered (base-36 ms) then random, so ids sort by start. */
export function newRunId(): string {
  let id = Date.now().toString(36).padStart(9, "0");
  for (const byte of crypto.getRandomValues(new Uint8Array(6))) {
    id += (byte < 16 ? "0" : "") + byte.toString(16);
  }
  return id;
}

/** Scripts longer than this are prepared every time (one would push out many small ones). */
const MAX_REMEMBERED_SOURCE = 64 * 1024;

/** Used when no telemetry is given: every span is a no-op. */
const NO_TELEMETRY = new GatewayTelemetry({ enabled: false });

/** Starts runs, with a pool of ready runners for the default sandbox. */
export class ScriptRunner {
  readonly #deps: ScriptRunnerDeps;
  readonly #pool: RunnerPool;
  readonly #active = new Map<string, RunHandle>();
  /**
   * Turns among `exec.maxConcurrentRuns` (each run is a Deno process; a burst of a thousand
   * must not start a thousand). A cancelled run leaves the queue at once.
   */
  readonly #turns: Semaphore;
  /** `deps.prepare`, remembering the last scripts it prepared. */
  readonly #prepare: ScriptRunnerDeps["prepare"];
  /** Runners of answered runs still being reaped (see `SupervisedRun.reaped`). */
  readonly #reaping = new Set<Promise<void>>();
  /** Removes finished runs' web storage in batches. */
  readonly #storageSweep: RunStorageSweep;
  readonly #moduleCache: RunnerModuleCache;
  /** Script file names reused across runs, so Deno's caches keep one entry per name. */
  readonly #slots = new RunnerSlots();

  constructor(deps: ScriptRunnerDeps) {
    this.#deps = deps;
    this.#prepare = rememberRecentAnswers(
      (source: string, inline: boolean) => deps.prepare(source, inline),
      (source, inline) => source.length > MAX_REMEMBERED_SOURCE ? null : `${inline}:${source}`,
    );
    this.#turns = new Semaphore(() => deps.exec().maxConcurrentRuns);
    this.#storageSweep = new RunStorageSweep(deps.denoDir);
    this.#moduleCache = new RunnerModuleCache({
      denoDir: deps.denoDir,
      onError: (url, error) =>
        deps.log(`could not put ${url} in Deno's cache (each runner analyses it): ${error}`),
    });
    const exec = deps.exec();
    this.#pool = new RunnerPool(
      exec.poolSize,
      () => this.#spawn({}, exec.maxMemoryMb, Deno.cwd(), true),
      { log: deps.log, idleMs: () => deps.exec().poolIdleMs },
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

  /** Runs waiting for a turn. */
  get queuedCount(): number {
    return this.#turns.waiting;
  }

  /** Number of runs in flight. */
  get activeCount(): number {
    return this.#active.size;
  }

  /** Starts a runner; `ahead` when it is started before its run (the pool's). */
  #spawn(
    permissions: PermissionSet,
    maxMemoryMb: number,
    cwd: string,
    ahead = false,
  ): Promise<RunnerProcess> {
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
      storageSweep: this.#storageSweep,
      slots: this.#slots,
      compileAtLoad: ahead,
      moduleCache: this.#moduleCache,
      ...(this.#deps.deniedPaths ? { deniedPaths: this.#deps.deniedPaths } : {}),
      ...(this.#deps.sandbox ? { sandbox: this.#deps.sandbox } : {}),
      ...(this.#deps.hiddenPaths ? { hiddenPaths: this.#deps.hiddenPaths } : {}),
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
    handle.done = this.#turns.acquire(controller.signal).then((release) => {
      let reaped: Promise<void> = Promise.resolve();
      return this.#execute(runId, request, {
        signal: controller.signal,
        cancelReason: () => cancelReason,
        onCapture: (capture) => (stdoutCapture = capture),
      }, (promise) => (reaped = promise)).finally(() => {
        // The turn is held until the runner is gone, even when the run was answered first:
        // at most `exec.maxConcurrentRuns` runner processes live at once.
        this.#reaping.add(reaped);
        reaped.finally(() => {
          this.#reaping.delete(reaped);
          release();
        });
      });
    }).finally(() => {
      this.#active.delete(runId);
      this.#pool.refillAfterRun();
    });
    return handle;
  }

  /**
   * A run's stages: preflight, a runner with the script written, supervision, finish.
   * `onReaped` is told the promise of the runner's end once the run has one.
   */
  async #execute(
    runId: string,
    request: RunRequest,
    control: RunControl,
    onReaped: (reaped: Promise<void>) => void,
  ): Promise<RunDocument> {
    const startedAt = Date.now();
    const exec = this.#deps.exec();
    const trace = (this.#deps.telemetry ?? NO_TELEMETRY).startRun({
      runId,
      client: request.client,
      ...(request.name ? { name: request.name } : {}),
      ...(request.traceparent ? { traceparent: request.traceparent } : {}),
    });
    let broker: CallBroker | null = null;
    const end = new RunFinish({
      runId,
      request,
      startedAt,
      exec,
      maxOutputBytes: request.maxOutputBytes ?? exec.maxOutputBytes,
      trace,
      toolCalls: () => broker?.toolCalls ?? [],
      toolMap: () => this.#deps.toolMap(),
      ...(this.#deps.outputFields ? { outputFields: this.#deps.outputFields } : {}),
      configDir: this.#deps.configDir ?? null,
      record: (run) => this.#deps.record(run),
      log: (message) => this.#deps.log(message),
    });
    const cleared = await preflight(request, {
      exec,
      configDir: this.#deps.configDir ?? null,
      deniedPaths: this.#deps.deniedPaths ?? [],
      prepare: this.#prepare,
      catalogueReady: (source, usage) => this.#deps.catalogueReady(source, usage),
      check: (prepared) => this.#deps.check(prepared),
      ...(this.#deps.checkerWarm ? { checkerWarm: this.#deps.checkerWarm } : {}),
      ...(this.#deps.startChecker ? { startChecker: this.#deps.startChecker } : {}),
      trace,
    });
    if (!cleared.ok) return end.failEarly(cleared.error, cleared.warnings);
    const { prepared, warnings } = cleared;
    if (control.signal.aborted) {
      const message = control.cancelReason() ?? "cancelled";
      return end.failEarly({ kind: "Cancelled", message }, warnings);
    }

    const maxMemoryMb = request.maxMemoryMb ?? exec.maxMemoryMb;
    const pooled = isEmptyPermissionSet(cleared.permissions) && maxMemoryMb === exec.maxMemoryMb;
    let runner: RunnerProcess;
    try {
      runner = pooled
        ? await this.#pool.take()
        : await this.#spawn(cleared.permissions, maxMemoryMb, request.cwd);
    } catch (error) {
      // A run that cannot start still answers, and is recorded, as a typed failure.
      const message = `Cannot start the runner in "${request.cwd}": ${(error as Error).message}`;
      return end.failEarly({ kind: "Crashed", message }, warnings);
    }
    let scriptPath: string;
    try {
      scriptPath = runner.writeScript(prepared.code, prepared.javaScript === true);
    } catch (error) {
      await runner.kill(0); // removes what was written of the script too
      const message = `Cannot write the script for the runner: ${(error as Error).message}`;
      return end.failEarly({ kind: "Crashed", message }, warnings);
    }

    const { status, output, returns, failure, reaped } = await superviseRun(runner, {
      runId,
      request,
      exec,
      control,
      code: {
        scriptPath,
        usage: prepared.usage ?? USES_EVERYTHING,
        exitAtEnd: mayExitAtEnd(prepared.code),
      },
      typeChecked: cleared.typeChecked,
      maxMemoryMb,
      warnings,
      historyCap: Math.max(
        request.maxOutputBytes ?? exec.maxOutputBytes,
        this.#deps.historyOutputBytes?.() ?? 1_048_576,
      ),
      trace,
      deps: this.#deps,
      onBroker: (started) => (broker = started),
    });
    onReaped(reaped);
    // Stack positions are in the prepared code: map them back to the author's text.
    const toSource = (error: RunError): RunError => {
      if (error.line === undefined || error.column === undefined) return error;
      const at = toSourcePosition(prepared, { line: error.line, column: error.column });
      return { ...error, line: at.line, column: at.column };
    };
    const error = failure === null ? null : end.explain(
      failure,
      (e) => toSource(asModuleSyntaxError(withoutRunPaths(e, { scriptPath, dir: runner.dir }))),
      prepared.stallLines ? { stallLines: prepared.stallLines } : {},
    );
    if (error === null && request.inline && returns.fullResult !== undefined) {
      // Images and audio in the result travel as attachments, a placeholder in their place.
      const media: Attachment[] = [...returns.attachments];
      const before = media.length;
      returns.setResult(moveMediaToAttachments(returns.fullResult, media));
      for (const block of media.slice(before)) returns.addAttachment(block);
    }
    const bounded = returns.bounded(runId, { includeResult: error === null && request.inline });
    return end.finish(
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
    await Promise.all(this.#reaping);
    await this.#pool.close();
    await this.#storageSweep.flush();
    // Compiled copies a run left behind (a removal that failed): all are under one directory.
    await Deno.remove(compiledCopyDir(this.#deps.denoDir, this.#deps.runsDir), {
      recursive: true,
    }).catch(() => undefined);
  }
}
