/**
 * The script runner as the gateway wires it: its channel (secrets masked on the way out), the
 * sandbox's paths, and the callbacks through which a script reaches tools, discovery, the
 * checker and history.
 * @module
 */

import { dirname, join } from "node:path";
import { RunChannelServer } from "../exec/run_channel_server.ts";
import type { ScriptCheckerWorker } from "../exec/script_checker_worker.ts";
import { type FinishedRun, RESULT_HOOK, ScriptRunner } from "../exec/script_runner.ts";
import { rememberRecentAnswers } from "../exec/recent_answers.ts";
import type { PreparedScript } from "../exec/script_transform.ts";
import { ChannelMethod, type RunMessage, type ToolMap } from "../protocol/channel_messages.ts";
import type { ProcessLedger } from "../process/process_ledger.ts";
import { foundOsSandboxTools, OsSandbox } from "../process/os_sandbox.ts";
import { denoDir } from "../process/deno_dir.ts";
import { withRealPath } from "../process/sandbox_view.ts";
import { userDataDir } from "../config/gateway_paths.ts";
import type { GatewayTelemetry } from "../telemetry/gateway_telemetry.ts";
import type { GatewayConfig } from "../config/gateway_config.ts";
import type { SecretMask } from "../config/secret_mask.ts";
import type { Logger } from "../logger.ts";
import type { NamespaceRegistry } from "../namespaces/namespace_registry.ts";
import type { HistoryStore } from "../store/gateway_store.ts";
import type { LiveCatalogue } from "./catalogue_views.ts";
import type { GatewayPaths } from "./gateway_paths.ts";
import { historyEntryOf } from "./history_entry.ts";
import { localSockets } from "./local_socket.ts";
import type { ToolCallEvent } from "./run_tracker.ts";
import type { SharedRunState } from "./shared_run_state.ts";
import type { ToolDispatcher } from "./tool_dispatcher.ts";

/** What no run may read or write: the data dir, and the server's sockets wherever they live. */
function deniedPathsOf(dataDir: string): string[] {
  const sockets = localSockets(dataDir);
  if (sockets === null || sockets.cli.startsWith(join(dataDir, "/"))) return [dataDir];
  return [dataDir, sockets.cli, sockets.http];
}

/**
 * The directories the OS sandbox never shows a run: this root's data dir, the user's data dir
 * (every root's token and history), and the user's run scratch space (every run's script and
 * channel; a run sees only its own, `runner_process.ts`). Both their written and resolved forms.
 */
function gatewayDirectories(dataDir: string, runsDir: string): string[] {
  const dirs = [dataDir, dirname(dirname(runsDir))];
  try {
    dirs.push(userDataDir({ env: Deno.env.toObject(), os: Deno.build.os }));
  } catch {
    // no home: only a pinned data dir exists
  }
  return [...new Set(dirs.flatMap(withRealPath))];
}

/** Scripts longer than this are type-checked every time (one would push out many small ones). */
const MAX_REMEMBERED_CHECK = 64 * 1024;

/**
 * What the runner is wired to: where runs live and what they may not see, the configuration
 * in force, the catalogue, the policy-gated tool call, the checker, and history.
 */
export interface RunnerDeps {
  /** The data dir (hidden from runs) and the root (their config dir). */
  readonly paths: GatewayPaths;
  /** Where each run's script and channel live. */
  readonly runsDir: string;
  readonly log: Logger;
  /** The configuration in force, read per run: a reload changes the limits. */
  readonly config: () => GatewayConfig;
  /** A namespace's kind and the tool map a run is given. */
  readonly registry: Pick<NamespaceRegistry, "get" | "toolMap">;
  /** Run state shared with other instances on one PostgreSQL; null for SQLite. */
  readonly shared: Pick<SharedRunState, "beforeRecord"> | null;
  /** Where a finished run is recorded. */
  readonly history: Pick<HistoryStore, "record">;
  /** Masks the config's secrets in what is sent to a run. */
  readonly outgoingMask: SecretMask;
  /** What a run is checked against and discovers from, and the wait for it to be ready. */
  readonly catalogue: Pick<
    LiveCatalogue,
    "snapshot" | "discoveryData" | "searchIndex" | "catalogueReady"
  >;
  /** The one way a run's tool calls and resource reads reach a namespace (the policy gate). */
  readonly dispatcher: Pick<ToolDispatcher, "callTool" | "resources">;
  readonly ledger: ProcessLedger;
  readonly telemetry: GatewayTelemetry;
  readonly checker: ScriptCheckerWorker;
  /** Who follows run `runId`'s tool calls, if anyone. */
  readonly toolCallWatcher: (runId: string) => ((event: ToolCallEvent) => void) | undefined;
}

/** Writes a finished run to history; false (logged) when the write failed. */
async function recordRun(deps: RunnerDeps, run: FinishedRun): Promise<boolean> {
  try {
    await deps.shared?.beforeRecord(run.document.runId);
    await deps.history.record(historyEntryOf(run));
    return true;
  } catch (error) {
    deps.log.error("history write failed; the run result is returned without it", {
      runId: run.document.runId,
      error: String(error),
    });
    return false;
  }
}

/** Builds the gateway's script runner. */
export function createScriptRunner(deps: RunnerDeps): ScriptRunner {
  /** The last tool map's masked JSON, with the secret forms it was masked with. */
  let toolMapJson: { map: ToolMap; forms: readonly string[]; json: string } | null = null;
  const channel = new RunChannelServer({
    log: (m) => deps.log.warn(m, { component: "channel" }),
    stringify: (message) => {
      if (message.method !== ChannelMethod.run) return deps.outgoingMask.stringify(message);
      // The caller's own arguments and stdin reach the script as given; everything the
      // gateway adds (catalogue, discovery data) is masked. The tool map is the same object
      // from run to run until the catalogue changes: its masked JSON is kept with it.
      const { args, stdin, toolMap: map, ...rest } = message.params as RunMessage;
      const forms = deps.outgoingMask.forms();
      let masked = toolMapJson;
      if (masked?.map !== map || masked.forms !== forms) {
        masked = toolMapJson = { map, forms, json: deps.outgoingMask.stringify(map) };
      }
      return `{"method":"run","params":${deps.outgoingMask.stringify(rest).slice(0, -1)},` +
        `"toolMap":${masked.json},"args":${JSON.stringify(args)},` +
        `"stdin":${JSON.stringify(stdin)}}}`;
    },
  });
  const { checker } = deps;
  // The diagnostics of a script depend on its code and on the tool types in force, which
  // change only with the catalogue snapshot: a script checked again against the same
  // snapshot (a rerun, a named script) is answered from memory.
  const snapshotIds = new WeakMap<object, number>();
  let nextSnapshotId = 0;
  const snapshotId = () => {
    const snapshot = deps.catalogue.snapshot();
    let id = snapshotIds.get(snapshot);
    if (id === undefined) snapshotIds.set(snapshot, id = nextSnapshotId++);
    return id;
  };
  const check = rememberRecentAnswers(
    (prepared: PreparedScript, _snapshot: number) => checker.check(prepared),
    (prepared, snapshot) =>
      prepared.code.length > MAX_REMEMBERED_CHECK ? null : `${snapshot}:${prepared.code}`,
  );
  return new ScriptRunner({
    channel,
    runsDir: deps.runsDir,
    denoDir: denoDir(),
    // The data dir holds the token and the CLI's socket, which needs no token: a run reaches
    // neither (the socket's path is named too when it had to live outside the data dir).
    deniedPaths: deniedPathsOf(deps.paths.dataDir),
    // The tools were found while the state was opened (`gateway_state.ts`), which also said
    // once if there are none.
    sandbox: new OsSandbox(foundOsSandboxTools(), { setting: () => deps.config().exec.osSandbox }),
    hiddenPaths: gatewayDirectories(deps.paths.dataDir, deps.runsDir),
    onSpawn: (pid) => deps.ledger.record(pid),
    telemetry: deps.telemetry,
    upstreamOf: (name) => deps.registry.get(name)?.kind ?? "unknown",
    exec: () => deps.config().exec,
    historyOutputBytes: () => deps.config().history.maxOutputBytes,
    configDir: deps.paths.root.dir,
    callTool: (call) => {
      const watcher = deps.toolCallWatcher(call.runId);
      const started = Date.now();
      watcher?.({ namespace: call.namespace, tool: call.tool, phase: "called" });
      // The call's own fields are the call options (no copy per call).
      const done = deps.dispatcher.callTool(call.namespace, call.tool, call.args, call);
      if (watcher) {
        const end = (ok: boolean) =>
          watcher({
            namespace: call.namespace,
            tool: call.tool,
            phase: ok ? "answered" : "failed",
            durationMs: Date.now() - started,
          });
        done.then(() => end(true), () => end(false));
      }
      return done;
    },
    resources: (request) => deps.dispatcher.resources(request),
    catalogueReady: (_source, usage) => deps.catalogue.catalogueReady(usage),
    toolMap: () => deps.registry.toolMap(),
    outputFields: (namespace, tool) =>
      deps.catalogue.searchIndex().entries.outputFields(namespace, tool),
    discovery: () => deps.catalogue.discoveryData(),
    prepare: (source, inline) => checker.prepare(source, { inline, resultFunction: RESULT_HOOK }),
    checkerWarm: () => checker.warm,
    startChecker: () => checker.ready().catch(() => {}),
    check: async (prepared) => {
      const before = snapshotId();
      const diagnostics = await check(prepared, before);
      // Checked while the catalogue changed: the answer may be the old types'; not kept.
      return snapshotId() === before ? structuredClone(diagnostics) : await checker.check(prepared);
    },
    record: (run) => recordRun(deps, run),
    log: (m) => deps.log.warn(m, { component: "runner" }),
  });
}
