/**
 * The store interface the server keeps its shared state behind: SQLite (`gateway.db`, the
 * embedded default for one user) or PostgreSQL (config `store.postgres`, for several gateway
 * instances on one database). Every method is async so both implementations fit; the SQLite one
 * answers at once.
 * @module
 */

import type { PendingApproval } from "../protocol/wire_views.ts";
import type { AnsweredApproval, RunRecord, RunSummary, StoredRun } from "./run_history.ts";
import type {
  NewWorkflowSessionEvent,
  WorkflowSession,
  WorkflowSessionEvent,
  WorkflowSessionPosition,
  WorkflowSessionUpdate,
} from "./workflow_sessions.ts";

/** Run history as any store keeps it. */
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
   * finds it too; an ambiguous prefix rejects with an `InvalidArgumentError` (a `RangeError`) naming the matches.
   */
  get(runId: string): Promise<StoredRun | null>;
  /**
   * The newest `limit` tool calls an `ask` policy rule held, with their answers (who, when),
   * so the dashboard's answered list outlives a reload and a restart.
   */
  answeredApprovals(limit: number): Promise<AnsweredApproval[]>;
  /** How many runs are stored (all, or only failed ones). */
  count(options?: { failed?: boolean }): Promise<number>;
  /** Retention: drops runs older than `maxAgeDays` and all but the newest `maxRuns`. */
  prune(options: { maxRuns: number; maxAgeDays: number }): Promise<{ deleted: number }>;
}

/** What a new workflow run in a session is created from. */
export type NewWorkflowSession =
  & Omit<WorkflowSession, "id" | "status" | "createdAt" | "updatedAt">
  & { at: number };

/**
 * Workflow sessions and their events as any store keeps them. No transaction spans
 * calls: each call is atomic, and a move checks the position it starts from, so two clients
 * (or two instances) never both advance a session from the same step.
 */
export interface WorkflowSessionStore {
  /** The latest workflow run of session `name`, or null. */
  latest(name: string): Promise<WorkflowSession | null>;
  /** Every session whose latest run is still running, most recently used first. */
  running(): Promise<WorkflowSession[]>;
  /** The events of session run `id`, oldest first. */
  events(id: number): Promise<WorkflowSessionEvent[]>;
  /** Creates a running workflow in `input.name` unless one runs there; then returns that one. */
  createUnlessRunning(
    input: NewWorkflowSession,
    events: readonly NewWorkflowSessionEvent[],
  ): Promise<{ created: WorkflowSession } | { running: WorkflowSession }>;
  /** Moves run `id` if it is still at `from`; false when someone moved it meanwhile. */
  advance(
    id: number,
    from: WorkflowSessionPosition,
    update: WorkflowSessionUpdate,
  ): Promise<boolean>;
}

/** What a run in flight is known by before it ends (enough to record it as `Crashed`). */
export type LiveRun = Pick<
  RunRecord,
  "runId" | "startedAt" | "source" | "args" | "stdinBytes" | "cwd" | "client" | "name"
>;

/**
 * What instances sharing one database tell each other; absent for the embedded SQLite store,
 * whose single gateway keeps runs and held calls in memory.
 */
export interface Coordination {
  /** This instance's id in the shared tables. */
  readonly instanceId: string;
  /** Records `run` as running on this instance (its history write removes it again). */
  started(run: LiveRun): Promise<void>;
  /** Whether a run is in flight on some instance. */
  isLive(runId: string): Promise<boolean>;
  /**
   * Resolves true once `runId` is no longer in flight anywhere (finished or marked crashed), or
   * false when `timeoutMs` (0 = no limit) passes or `signal` aborts first.
   */
  waitDone(runId: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean>;
  /** Publishes a call this instance holds for approval, so other instances list and answer it. */
  held(view: PendingApproval): Promise<void>;
  /** Removes a held call once answered or ended. */
  settled(id: string): Promise<void>;
  /** Calls other instances hold, waiting for an answer. */
  pendingElsewhere(): Promise<PendingApproval[]>;
  /** Answers calls other instances hold (by call id or run id); resolves to how many. */
  answer(id: string, decision: { allowed: boolean; by: string; at: number }): Promise<number>;
  /** Told when another instance answered one of this instance's held calls. */
  onAnswer(
    listener: (id: string, decision: { allowed: boolean; by: string; at: number }) => void,
  ): () => void;
}

/** One open store: what the gateway core opens at start and closes at stop. */
export interface GatewayStore {
  /** Which implementation this is, for logs and `gateway status`. */
  readonly kind: "sqlite" | "postgres";
  readonly history: HistoryStore;
  /** Workflow sessions and their events. */
  readonly workflows: WorkflowSessionStore;
  /** Shared run state between instances; null when this store serves one instance. */
  readonly coordination: Coordination | null;
  /** Schema version the store is at (the number of migrations applied). */
  schemaVersion(): Promise<number>;
  /** Closes connections; later calls reject. */
  close(): Promise<void>;
}
