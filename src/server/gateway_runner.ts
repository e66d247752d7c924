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
import {
  ChannelMethod,
  type DiscoveryData,
  type RunMessage,
  type ToolMap,
} from "../protocol/channel_messages.ts";
import type { ProcessLedger } from "../process/process_ledger.ts";
import { foundOsSandboxTools, OsSandbox } from "../process/os_sandbox.ts";
import { denoDir } from "../process/deno_dir.ts";
import { withRealPath } from "../process/sandbox_view.ts";
import { userDataDir } from "../config/gateway_paths.ts";
import type { GatewayTelemetry } from "../telemetry/gateway_telemetry.ts";
import type { SearchIndex } from "../discovery/search.ts";
import type { GatewayConfig } from "../config/gateway_config.ts";
import type { SecretMask } from "../config/secret_mask.ts";
import type { Logger } from "../logger.ts";
import type { NamespaceRegistry } from "../namespaces/namespace_registry.ts";
import type { CatalogueSnapshot } from "../protocol/catalogue.ts";
import type { ScriptUsage } from "../exec/script_analysis.ts";
import type { HistoryStore } from "../store/gateway_store.ts";
import type { GatewayPaths } from "./gateway_paths.ts";
import { historyEntryOf } from "./history_entry.ts";
import { localSockets } from "./local_socket.ts";
import type { ToolCallEvent } from "./run_tracker.ts";
import type { SharedRunState } from "./shared_run_state.ts";
import type { CallOptions } from "./tool_dispatcher.ts";

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
 * What the runner uses of the gateway core (which passes itself): its paths, log and
 * configuration, the catalogue, the policy-gated tool call, and history.
 */
export interface RunnerHost {
  readonly paths: GatewayPaths;
  readonly log: Logger;
  readonly config: GatewayConfig;
  readonly registry: Pick<NamespaceRegistry, "get" | "toolMap">;
  readonly shared: SharedRunState | null;
  readonly history: HistoryStore;
  readonly outgoingMask: SecretMask;
  snapshot(): CatalogueSnapshot;
  discoveryData(): DiscoveryData;
  searchIndex(): SearchIndex;
  catalogueReady(usage?: ScriptUsage): Promise<void>;
  callTool(namespace: string, tool: string, args: unknown, options: CallOptions): Promise<unknown>;
  resources(request: { namespace: string; op: "list" | "read"; uri?: string }): Promise<unknown>;
}

/** The parts of the core the runner is wired to that the core does not expose. */
export interface RunnerParts {
  runsDir: string;
  ledger: ProcessLedger;
  telemetry: GatewayTelemetry;
  checker: ScriptCheckerWorker;
  /** Who follows run `runId`'s tool calls, if anyone. */
  toolCallWatcher: (runId: string) => ((event: ToolCallEvent) => void) | undefined;
}

/** Writes a finished run to history; false (logged) when the write failed. */
async function recordRun(core: RunnerHost, run: FinishedRun): Promise<boolean> {
  try {
    await core.shared?.beforeRecord(run.document.runId);
    await core.history.record(historyEntryOf(run));
    return true;
  } catch (error) {
    core.log.error("history write failed; the run result is returned without it", {
      runId: run.document.runId,
      error: String(error),
    });
    return false;
  }
}

/** Builds the gateway's script runner. */
export function createScriptRunner(core: RunnerHost, parts: RunnerParts): ScriptRunner {
  /** The last tool map's masked JSON, with the secret forms it was masked with. */
  let toolMapJson: { map: ToolMap; forms: readonly string[]; json: string } | null = null;
  const channel = new RunChannelServer({
    log: (m) => core.log.warn(m, { component: "channel" }),
    stringify: (message) => {
      if (message.method !== ChannelMethod.run) return core.outgoingMask.stringify(message);
      // The caller's own arguments and stdin reach the script as given; everything the
      // gateway adds (catalogue, discovery data) is masked. The tool map is the same object
      // from run to run until the catalogue changes: its masked JSON is kept with it.
      const { args, stdin, toolMap: map, ...rest } = message.params as RunMessage;
      const forms = core.outgoingMask.forms();
      let masked = toolMapJson;
      if (masked?.map !== map || masked.forms !== forms) {
        masked = toolMapJson = { map, forms, json: core.outgoingMask.stringify(map) };
      }
      return `{"method":"run","params":${core.outgoingMask.stringify(rest).slice(0, -1)},` +
        `"toolMap":${masked.json},"args":${JSON.stringify(args)},` +
        `"stdin":${JSON.stringify(stdin)}}}`;
    },
  });
  const { checker } = parts;
  // The diagnostics of a script depend on its code and on the tool types in force, which
  // change only with the catalogue snapshot: a script checked again against the same
  // snapshot (a rerun, a named script) is answered from memory.
  const snapshotIds = new WeakMap<object, number>();
  let nextSnapshotId = 0;
  const snapshotId = () => {
    const snapshot = core.snapshot();
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
    runsDir: parts.runsDir,
    denoDir: denoDir(),
    // The data dir holds the token and the CLI's socket, which needs no token: a run reaches
    // neither (the socket's path is named too when it had to live outside the data dir).
    deniedPaths: deniedPathsOf(core.paths.dataDir),
    // The tools were found while the state was opened (`gateway_state.ts`), which also said
    // once if there are none.
    sandbox: new OsSandbox(foundOsSandboxTools(), { setting: () => core.config.exec.osSandbox }),
    hiddenPaths: gatewayDirectories(core.paths.dataDir, parts.runsDir),
    onSpawn: (pid) => parts.ledger.record(pid),
    telemetry: parts.telemetry,
    upstreamOf: (name) => core.registry.get(name)?.kind ?? "unknown",
    exec: () => core.config.exec,
    historyOutputBytes: () => core.config.history.maxOutputBytes,
    configDir: core.paths.root.dir,
    callTool: (call) => {
      const watcher = parts.toolCallWatcher(call.runId);
      const started = Date.now();
      watcher?.({ namespace: call.namespace, tool: call.tool, phase: "called" });
      // The call's own fields are the call options (no copy per call).
      const done = core.callTool(call.namespace, call.tool, call.args, call);
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
    resources: (request) => core.resources(request),
    catalogueReady: (_source, usage) => core.catalogueReady(usage),
    toolMap: () => core.registry.toolMap(),
    outputFields: (namespace, tool) => core.searchIndex().entries.outputFields(namespace, tool),
    discovery: () => core.discoveryData(),
    prepare: (source, inline) => checker.prepare(source, { inline, resultFunction: RESULT_HOOK }),
    checkerWarm: () => checker.warm,
    startChecker: () => checker.ready().catch(() => {}),
    check: async (prepared) => {
      const before = snapshotId();
      const diagnostics = await check(prepared, before);
      // Checked while the catalogue changed: the answer may be the old types'; not kept.
      return snapshotId() === before ? structuredClone(diagnostics) : await checker.check(prepared);
    },
    record: (run) => recordRun(core, run),
    log: (m) => core.log.warn(m, { component: "runner" }),
  });
}
