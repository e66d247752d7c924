/**
 * The store interface the server keeps its shared state behind: SQLite (`gateway.db`, the
 * embedded default for one user) or PostgreSQL (config `store.postgres`, for several gateway
 * instances on one database). Every method is async so both implementations fit; the SQLite one
 * answers at once.
 * @module
 */

import type { RunRecord, RunSummary, StoredRun } from "./run_history.ts";

/** Run history (SPEC §9) as any store keeps it. */
export interface HistoryStore {
  /**
   * Writes `run` and its tool calls in one transaction and resolves once committed. A rejection
   * means nothing was stored: the caller reports `history: "failed"` and still answers the run.
   */
  record(run: RunRecord): Promise<void>;
  /** Runs newest first, for `gateway history [--limit N] [--failed]`. */
  list(options: { limit: number; failed?: boolean; offset?: number }): Promise<RunSummary[]>;
  /**
   * The whole stored run, or null. A prefix of at least 6 characters matching exactly one run
   * finds it too; an ambiguous prefix rejects with a `RangeError` naming the matches.
   */
  get(runId: string): Promise<StoredRun | null>;
  /** How many runs are stored (all, or only failed ones). */
  count(options?: { failed?: boolean }): Promise<number>;
  /** Retention: drops runs older than `maxAgeDays` and all but the newest `maxRuns`. */
  prune(options: { maxRuns: number; maxAgeDays: number }): Promise<{ deleted: number }>;
}

/** One open store: what the gateway core opens at start and closes at stop. */
export interface GatewayStore {
  /** Which implementation this is, for logs and `gateway status`. */
  readonly kind: "sqlite" | "postgres";
  readonly history: HistoryStore;
  /** Schema version the store is at (the number of migrations applied). */
  schemaVersion(): Promise<number>;
  /** Closes connections; later calls reject. */
  close(): Promise<void>;
}
