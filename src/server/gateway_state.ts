/**
 * What a server opens in its data dir before the parts are wired: the history store (SQLite
 * or PostgreSQL) and scratch space cleared of dead servers' leftovers.
 * @module
 */

import { join } from "node:path";
import type { GatewayConfig } from "../config/gateway_config.ts";
import { pidAlive } from "../config/server_state.ts";
import type { Logger } from "../logger.ts";
import { type GatewayDatabase, openGatewayDatabase } from "../store/gateway_database.ts";
import type { GatewayStore } from "../store/gateway_store.ts";
import { SqliteStore } from "../store/sqlite_store.ts";
import type { Approvals } from "./approvals.ts";
import { SharedRunState } from "./shared_run_state.ts";

/**
 * Removes run directories and channel sockets left by gateways that died without stopping
 * (kill -9), so scratch space returns to its baseline (RELIABILITY SBX-13).
 */
export async function removeStaleState(dir: string, log: Logger): Promise<void> {
  for await (const entry of Deno.readDir(dir)) {
    const match = /^(?:runs|channel)-(\d+)(?:\.sock)?$/.exec(entry.name);
    if (!match || Number(match[1]) === Deno.pid || pidAlive(Number(match[1]))) continue;
    await Deno.remove(join(dir, entry.name), { recursive: true }).catch((error) =>
      log.warn("cannot remove stale run state", { path: entry.name, error: String(error) })
    );
  }
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
  const database = openGatewayDatabase(join(dataDir, "gateway.db"));
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
