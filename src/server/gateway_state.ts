/**
 * What a server opens in its data dir before the parts are wired: the state dir and process
 * ledger, scratch space cleared of dead servers' leftovers, and the history store (SQLite or
 * PostgreSQL).
 * @module
 */

import { join } from "node:path";
import type { GatewayConfig } from "../config/gateway_config.ts";
import type { LoadedConfig } from "../config/config_loader.ts";
import { runtimeDirFor } from "../config/runtime_dir.ts";
import { ProcessLedger } from "../process/process_ledger.ts";
import { findOsSandboxTools, OsSandbox } from "../process/os_sandbox.ts";
import type { GatewayPaths } from "./gateway_paths.ts";
import type { Logger } from "../logger.ts";
import { type GatewayDatabase, openGatewayDatabase } from "../store/gateway_database.ts";
import type { GatewayStore } from "../store/gateway_store.ts";
import { SqliteStore } from "../store/sqlite_store.ts";
import type { Approvals } from "./approvals.ts";
import { SharedRunState } from "./shared_run_state.ts";
import { retryWhileDescriptorsExhausted } from "./descriptor_wait.ts";

/**
 * Removes run directories and channel sockets left by gateways that died without stopping
 * (kill -9), so scratch space returns to its baseline. Both dirs belong to one data dir, whose
 * lock this server holds: every other server's leftovers there are a dead server's (their pid
 * says whose, not whether it lives — it may since be anyone's).
 */
export async function removeStaleState(dir: string, log: Logger): Promise<void> {
  for await (const entry of Deno.readDir(dir)) {
    const match = /^(?:runs|channel|tools)-(\d+)(?:\.sock|-\w+)?$/.exec(entry.name);
    if (!match || Number(match[1]) === Deno.pid) continue;
    await Deno.remove(join(dir, entry.name), { recursive: true }).catch((error) =>
      log.warn("cannot remove stale run state", { path: entry.name, error: String(error) })
    );
  }
}

/** Everything {@linkcode openGatewayState} opened, for the core to wire. */
export interface OpenedState extends OpenedStore {
  ledger: ProcessLedger;
  runtimeDir: string;
  /** This server's run directories live here. */
  runsDir: string;
}

/**
 * Opens a server's state: the private state dir (reaping children of dead servers), scratch
 * space cleared of their leftovers, and the history store.
 */
export async function openGatewayState(
  paths: GatewayPaths,
  loaded: LoadedConfig,
  options: { token: string | null; approvals: Approvals; log: Logger },
): Promise<OpenedState> {
  const { log } = options;
  // "required" with no sandbox on this machine is refused before anything is opened.
  const sandboxTools = await findOsSandboxTools();
  new OsSandbox(sandboxTools, {
    setting: () => loaded.config.exec.osSandbox,
    log: (message) => log.warn(message, { component: "sandbox" }),
  }).check();
  const stateDir = join(paths.dataDir, "state");
  const warn = (m: string) => log.warn(m);
  const runtimeDir = runtimeDirFor(paths.dataDir);
  const runsDir = join(runtimeDir, `runs-${Deno.pid}`);
  // The listener is up already: a flood of connections may hold every descriptor meanwhile.
  await retryWhileDescriptorsExhausted(async () => {
    await Deno.mkdir(stateDir, { recursive: true, mode: 0o700 });
    await Deno.chmod(stateDir, 0o700);
    // The server lock is held (gateway_server.ts): every ledger but ours is a dead server's.
    ProcessLedger.reapStale(stateDir, { log: warn });
    await removeStaleState(stateDir, log);
    await removeStaleState(runtimeDir, log);
    await Deno.mkdir(runsDir, { recursive: true, mode: 0o700 });
  }, { what: "the state dir", log: (m, f) => log.warn(m, f) });
  const ledger = new ProcessLedger(stateDir, { log: warn });
  const opened = await openGatewayStore(paths.dataDir, loaded.config, {
    // The history masks the config's secrets and the gateway's own token.
    secrets: [
      ...(options.token === null ? [] : [options.token]),
      ...loaded.secrets,
      ...loaded.config.history.redact,
    ],
    approvals: options.approvals,
    log,
  });
  return { ...opened, ledger, runtimeDir, runsDir };
}

/** The opened database and history store, and shared run state on PostgreSQL. */
export interface OpenedStore {
  database: GatewayDatabase;
  store: GatewayStore;
  shared: SharedRunState | null;
}

/**
 * Opens `gateway.db` and the history store: SQLite, or PostgreSQL when config `store.postgres`
 * is set (several instances on one database share history and run state). The PostgreSQL
 * code loads only then.
 */
export async function openGatewayStore(
  dataDir: string,
  config: GatewayConfig,
  options: { secrets: string[]; approvals: Approvals; log: Logger },
): Promise<OpenedStore> {
  const database = await retryWhileDescriptorsExhausted(
    () => openGatewayDatabase(join(dataDir, "gateway.db")),
    {
      what: "the history database",
      // The listener is up already: a flood of connections may hold every descriptor meanwhile.
      log: (m, f) => options.log.warn(m, f),
    },
  );
  const historyOptions = {
    secrets: options.secrets,
    maxOutputBytes: config.history.maxOutputBytes,
  };
  const { postgres, poolSize, leaseMs } = config.store;
  if (postgres === undefined) {
    return { database, store: new SqliteStore(database, historyOptions), shared: null };
  }
  const log = (m: string) => options.log.warn(m, { component: "store" });
  const { openPostgresStore } = await import("../store/postgres_store.ts");
  const store = await openPostgresStore(postgres, { ...historyOptions, poolSize, log });
  await store.coordination.start({ leaseMs, log });
  return {
    database,
    store,
    shared: new SharedRunState(store.coordination, options.approvals, log),
  };
}
