/**
 * The embedded {@linkcode GatewayStore}: `gateway.db` through {@linkcode RunHistory}, unchanged
 * from a single-instance gateway; each async method runs the synchronous SQLite call at once.
 * @module
 */

import type { GatewayStore, HistoryStore, WorkflowSessionStore } from "./gateway_store.ts";
import { WorkflowSessions } from "./workflow_sessions.ts";
import type { GatewayDatabase } from "./gateway_database.ts";
import { RunHistory, type RunHistoryOptions } from "./run_history.ts";

/** The SQLite store over one open {@linkcode GatewayDatabase}. */
export class SqliteStore implements GatewayStore {
  /** Always `"sqlite"`. */
  readonly kind = "sqlite" as const;
  /** History over the `runs` and `tool_calls` tables. */
  readonly history: HistoryStore;
  /** Sessions over the `workflow_sessions` and `workflow_events` tables. */
  readonly workflows: WorkflowSessionStore;
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
      answeredApprovals: (limit) => attempt(() => history.answeredApprovals(limit)),
      count: (query) => attempt(() => history.count(query)),
      prune: (query) => attempt(() => history.prune(query)),
    };
    this.workflows = sqliteWorkflowSessions(database);
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

/** The async {@linkcode WorkflowSessionStore} over the synchronous {@linkcode WorkflowSessions}. */
export function sqliteWorkflowSessions(database: GatewayDatabase): WorkflowSessionStore {
  const sessions = new WorkflowSessions(database);
  return {
    latest: (name) => attempt(() => sessions.latest(name)),
    running: () => attempt(() => sessions.running()),
    events: (id) => attempt(() => sessions.events(id)),
    createUnlessRunning: (input, events) =>
      attempt(() => sessions.createUnlessRunning(input, events)),
    advance: (id, from, update) => attempt(() => sessions.advance(id, from, update)),
  };
}

/** Runs a synchronous call, turning a throw into a rejection. */
function attempt<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (error) {
    return Promise.reject(error);
  }
}
