/**
 * The embedded {@linkcode GatewayStore}: `gateway.db` through {@linkcode RunHistory}, unchanged
 * from a single-instance gateway; each async method runs the synchronous SQLite call at once.
 * @module
 */

import type { GatewayStore, HistoryStore } from "./gateway_store.ts";
import type { GatewayDatabase } from "./gateway_database.ts";
import { RunHistory, type RunHistoryOptions } from "./run_history.ts";

/** The SQLite store over one open {@linkcode GatewayDatabase}. */
export class SqliteStore implements GatewayStore {
  /** Always `"sqlite"`. */
  readonly kind = "sqlite" as const;
  /** History over the `runs` and `tool_calls` tables. */
  readonly history: HistoryStore;
  /** None: one gateway owns `gateway.db` (the server lock) and keeps run state in memory. */
  readonly coordination = null;
  /** The connection, for the modules that still use it synchronously (workflow sessions). */
  readonly database: GatewayDatabase;

  /** Wraps `database` (already migrated); closing the store closes it. */
  constructor(database: GatewayDatabase, options: RunHistoryOptions = {}) {
    this.database = database;
    const history = new RunHistory(database, options);
    this.history = {
      record: (run) => attempt(() => history.record(run)),
      list: (query) => attempt(() => history.list(query)),
      get: (runId) => attempt(() => history.get(runId)),
      count: (query) => attempt(() => history.count(query)),
      prune: (query) => attempt(() => history.prune(query)),
    };
  }

  /** `PRAGMA user_version`. */
  schemaVersion(): Promise<number> {
    return attempt(() => this.database.schemaVersion);
  }

  /** Closes the SQLite connection. */
  close(): Promise<void> {
    return attempt(() => this.database.close());
  }
}

/** Runs a synchronous call, turning a throw into a rejection. */
function attempt<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (error) {
    return Promise.reject(error);
  }
}
