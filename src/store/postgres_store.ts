/**
 * The PostgreSQL {@linkcode GatewayStore} (config `store.postgres`): several gateway instances on
 * one database share run history. Same numbered migrations as `gateway.db`, written in
 * PostgreSQL's dialect; a pool of connections through the `postgres` npm driver; a database that
 * is down is a {@linkcode StoreUnavailableError} naming the cause, and a history write retries
 * with back-off before it gives up, so a short restart loses no answered run.
 * One class implements the whole store interface, method for method beside sqlite_store.ts,
 * so the two read side by side.
 * @module
 */

import postgres from "postgres";
import { PostgresPool } from "./postgres_pool.ts";
import type { GatewayStore, HistoryStore, WorkflowSessionStore } from "./gateway_store.ts";
import { PostgresWorkflowSessions } from "./postgres_workflow_sessions.ts";
import { PostgresCoordination, RUN_DONE_CHANNEL } from "./postgres_coordination.ts";
import {
  answeredApprovalOf,
  answeredApprovalsQuery,
  HistoryRedactor,
  type RunHistoryOptions,
  type RunRecord,
  runSummaryOf,
  storedRunOf,
} from "./run_history.ts";
import { InvalidArgumentError } from "../protocol/invalid_argument_error.ts";
import { messageOf } from "../protocol/message_of.ts";

/**
 * The schema in PostgreSQL's dialect, one entry per version, numbered as
 * `GATEWAY_MIGRATIONS` (gateway_database.ts): entry `i` takes the store from version `i` to `i + 1`.
 * Append only, and always in step with the SQLite list (the store contract test checks it).
 */
export const POSTGRES_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE runs (
    rid BIGSERIAL PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    started_at BIGINT NOT NULL,
    duration_ms BIGINT NOT NULL,
    name TEXT,
    source TEXT NOT NULL,
    args TEXT NOT NULL,
    stdin_bytes BIGINT NOT NULL,
    cwd TEXT NOT NULL,
    client TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
    error_kind TEXT,
    error_message TEXT,
    stdout TEXT NOT NULL,
    stdout_bytes BIGINT NOT NULL,
    stdout_capped INTEGER NOT NULL,
    stderr TEXT NOT NULL,
    stderr_bytes BIGINT NOT NULL,
    stderr_capped INTEGER NOT NULL,
    result TEXT,
    result_capped INTEGER NOT NULL,
    exit_code INTEGER,
    tool_call_count INTEGER NOT NULL
  );
  CREATE INDEX runs_by_start ON runs (started_at);
  CREATE INDEX runs_failed_by_start ON runs (started_at) WHERE status = 'failed';
  CREATE TABLE tool_calls (
    run_rid BIGINT NOT NULL REFERENCES runs (rid) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    namespace TEXT NOT NULL,
    tool TEXT NOT NULL,
    started_at BIGINT NOT NULL,
    duration_ms BIGINT NOT NULL,
    ok INTEGER NOT NULL,
    error_kind TEXT,
    PRIMARY KEY (run_rid, seq)
  );
  CREATE TABLE workflow_sessions (
    id BIGSERIAL PRIMARY KEY,
    name TEXT NOT NULL,
    file TEXT NOT NULL,
    file_hash TEXT NOT NULL,
    file_text TEXT NOT NULL,
    vars TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('running', 'complete', 'aborted')),
    step INTEGER NOT NULL,
    pass INTEGER NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
  );
  CREATE INDEX workflow_sessions_by_name ON workflow_sessions (name, id);
  CREATE UNIQUE INDEX workflow_sessions_one_running ON workflow_sessions (name)
    WHERE status = 'running';
  CREATE TABLE workflow_events (
    id BIGSERIAL PRIMARY KEY,
    session_id BIGINT NOT NULL REFERENCES workflow_sessions (id) ON DELETE CASCADE,
    at BIGINT NOT NULL,
    kind TEXT NOT NULL
      CHECK (kind IN ('start', 'step', 'loop', 'end-loop', 'abort', 'reset', 'complete')),
    step INTEGER,
    pass INTEGER,
    reason TEXT
  );
  CREATE INDEX workflow_events_by_session ON workflow_events (session_id, id);
  `,
  // 2: who approved or denied a call held by an `ask` policy rule, as JSON.
  `
  ALTER TABLE tool_calls ADD COLUMN approval TEXT;
  `,
  // 3: run state shared by the instances: leases, runs in flight, calls held for approval.
  `
  CREATE TABLE gateway_instances (id TEXT PRIMARY KEY, lease_until BIGINT NOT NULL);
  CREATE TABLE live_runs (
    id TEXT PRIMARY KEY,
    instance TEXT NOT NULL,
    started_at BIGINT NOT NULL,
    record TEXT NOT NULL
  );
  CREATE INDEX live_runs_by_instance ON live_runs (instance);
  CREATE TABLE held_approvals (
    id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL,
    instance TEXT NOT NULL,
    view TEXT NOT NULL,
    answer TEXT
  );
  `,
  // 4: what each tool call answered (its result or error message), redacted and capped, for
  // the run details of `gateway history show` and the dashboard.
  `
  ALTER TABLE tool_calls ADD COLUMN result TEXT;
  `,
];

/** Options of {@linkcode openPostgresStore}. */
export interface PostgresStoreOptions extends RunHistoryOptions {
  /**
   * Most connections this instance holds open.
   * @default {10}
   */
  poolSize?: number;
  /**
   * How long a history write keeps retrying while the database is unreachable, in ms.
   * @default {30000}
   */
  retryForMs?: number;
  /** Told about driver failures that happen outside any query (see postgres_pool.ts). */
  log?: (message: string) => void;
}

/**
 * The database could not be reached (refused, closed, restarting): the cause is in the message.
 * Callers turn it into `NamespaceUnavailable` (tools) or a clear server error (history).
 */
export class StoreUnavailableError extends Error {
  /** The driver's or server's code (`ECONNREFUSED`, `57P01` …). */
  readonly code: string;

  /** Wraps `cause`, whose `code` says what failed. */
  constructor(message: string, code: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "StoreUnavailableError";
    this.code = code;
  }
}

const PRUNE_BATCH = 500;
/** Longest one history write attempt may go unanswered before it is retried on a new pool. */
const ATTEMPT_TIMEOUT_MS = 5000;
const DAY_MS = 86_400_000;
/** Advisory lock key every instance takes while migrating, so only one migrates at a time. */
const MIGRATION_LOCK = 0x6761_7465; // "gate"

type Sql = postgres.Sql;
type Row = Record<string, unknown>;

/**
 * Connects to `url`, brings the schema up to date (one transaction per migration under an
 * advisory lock, so instances starting together migrate once) and returns the store.
 */
export async function openPostgresStore(
  url: string,
  options: PostgresStoreOptions = {},
): Promise<PostgresStore> {
  // int8 columns (times in ms) come back as strings; the row mappers convert with Number().
  const pool = new PostgresPool(
    () => postgres(url, { max: options.poolSize ?? 10, onnotice: () => {}, connect_timeout: 5 }),
    options.log,
  );
  const where = redactUrl(url);
  try {
    await migrate(pool.sql);
  } catch (error) {
    await pool.end(1).catch(() => {});
    throw describe(error, `Cannot open PostgreSQL store ${where}`);
  }
  return new PostgresStore(pool, where, options);
}

/** The store over a connection pool; use {@linkcode openPostgresStore} to get one. */
export class PostgresStore implements GatewayStore {
  /** Always `"postgres"`. */
  readonly kind = "postgres" as const;
  /** History over the shared `runs` and `tool_calls` tables. */
  readonly history: HistoryStore;
  /** Workflow sessions every instance steps. */
  readonly workflows: WorkflowSessionStore;
  /** Leases, runs in flight and held calls shared with the other instances. */
  readonly coordination: PostgresCoordination;
  /** The pool (for LISTEN/NOTIFY and other shared state built on this store). */
  readonly pool: PostgresPool;
  /** The database URL without its password, for messages. */
  readonly where: string;

  /** Wraps an open pool whose schema is migrated. */
  constructor(pool: PostgresPool, where: string, options: PostgresStoreOptions = {}) {
    this.pool = pool;
    this.where = where;
    this.history = new PostgresHistory(pool, where, options);
    this.workflows = new PostgresWorkflowSessions(pool);
    this.coordination = new PostgresCoordination(pool, new HistoryRedactor(options));
  }

  /** The number of migrations applied. */
  async schemaVersion(): Promise<number> {
    try {
      return await currentVersion(this.pool.sql);
    } catch (error) {
      throw describe(error, `Cannot read the schema version of ${this.where}`);
    }
  }

  /** Closes every pooled connection (waiting up to 5 s for queries in flight). */
  async close(): Promise<void> {
    await this.coordination.stop();
    await this.pool.end(5);
  }
}

class PostgresHistory implements HistoryStore {
  #pool: PostgresPool;
  #where: string;
  #redactor: HistoryRedactor;
  #now: () => number;
  #retryForMs: number;

  constructor(pool: PostgresPool, where: string, options: PostgresStoreOptions) {
    this.#pool = pool;
    this.#where = where;
    this.#redactor = new HistoryRedactor(options);
    this.#now = options.now ?? Date.now;
    this.#retryForMs = options.retryForMs ?? 30_000;
  }

  async record(run: RunRecord): Promise<void> {
    const row = this.#redactor.row(run);
    const columns = Object.keys(row);
    const values = columns.map((column) => noNul(row[column] ?? null));
    const insertRun = `INSERT INTO runs (${columns.join(", ")})
      VALUES (${columns.map((_, i) => `$${i + 1}`).join(", ")}) RETURNING rid`;
    const write = () =>
      this.#pool.sql.begin(async (tx) => {
        const [inserted] = await tx.unsafe(insertRun, values);
        const rid = String(inserted?.rid);
        for (const [seq, call] of run.toolCalls.entries()) {
          await tx.unsafe(
            `INSERT INTO tool_calls
               (run_rid, seq, namespace, tool, started_at, duration_ms, ok, error_kind, approval,
                result)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
            [
              rid,
              seq,
              noNul(call.namespace),
              noNul(call.tool),
              call.startedAt,
              call.durationMs,
              call.ok ? 1 : 0,
              call.errorKind,
              call.approval ? JSON.stringify(call.approval) : null,
              noNul(this.#redactor.callResult(call)),
            ],
          );
        }
        // No longer in flight: `wait` on any instance wakes (delivered at commit).
        await tx.unsafe("DELETE FROM live_runs WHERE id = $1", [run.runId]);
        await tx.unsafe("SELECT pg_notify($1, $2)", [RUN_DONE_CHANNEL, run.runId]);
      });
    const began = Date.now();
    const deadline = began + this.#retryForMs;
    for (let attempt = 0;; attempt++) {
      try {
        await withTimeout(write(), ATTEMPT_TIMEOUT_MS, () => {
          // No answer at all: most likely a connection the driver left stalled (see
          // postgres_pool.ts); a fresh pool takes over, and a late commit shows up as 23505.
          this.#pool.renew(`a history write got no answer in ${ATTEMPT_TIMEOUT_MS} ms`);
        });
        return;
      } catch (error) {
        if (codeOf(error) === "23505") {
          // Marked Crashed by another instance while this one could not renew its lease (the
          // database was away): the real outcome replaces the mark.
          const replaced = await this.#pool.sql.unsafe(
            "DELETE FROM runs WHERE id = $1 AND error_kind = 'Crashed'",
            [run.runId],
          ).then((result) => result.count, () => 0);
          if (replaced > 0) continue;
          // A commit whose answer was lost to a dropped connection is found on the retry.
          if (attempt > 0) return;
        }
        if (!isUnavailable(error) || Date.now() >= deadline) {
          throw describe(
            error,
            `Cannot record run "${run.runId}" in history (${this.#where}; ${attempt + 1} ` +
              `attempt${attempt === 0 ? "" : "s"} over ${Date.now() - began} ms)`,
          );
        }
        await delay(Math.min(100 * 2 ** attempt, 2000, Math.max(0, deadline - Date.now())));
      }
    }
  }

  async list(options: { limit: number; failed?: boolean; offset?: number }) {
    const { limit, failed = false, offset = 0 } = options;
    const rows = await this.#query(
      `SELECT id, started_at, duration_ms, name, status, error_kind, client, cwd,
              tool_call_count, substr(source, 1, 2000) AS head
       FROM runs ${failed ? "WHERE status = 'failed'" : ""}
       ORDER BY started_at DESC, rid DESC LIMIT $1 OFFSET $2`,
      [Math.max(0, Math.trunc(limit)), Math.max(0, Math.trunc(offset))],
      "list history",
    );
    return rows.map(runSummaryOf);
  }

  async get(runId: string) {
    let [row] = await this.#query("SELECT * FROM runs WHERE id = $1", [runId], "read history");
    if (row === undefined && runId.length >= 6) {
      const matches = await this.#query(
        `SELECT * FROM runs WHERE left(id, length($1)) = $1 ORDER BY started_at LIMIT 6`,
        [runId],
        "read history",
      );
      if (matches.length > 1) {
        const ids = matches.slice(0, 5).map((m) => `"${String(m.id)}"`).join(", ");
        throw new InvalidArgumentError(
          `Cannot find run "${runId}": the prefix matches several runs: ${ids}${
            matches.length > 5 ? ", …" : ""
          }`,
        );
      }
      row = matches[0];
    }
    if (row === undefined) return null;
    const calls = await this.#query(
      `SELECT namespace, tool, started_at, duration_ms, ok, error_kind, approval, result
       FROM tool_calls WHERE run_rid = $1 ORDER BY seq`,
      [String(row.rid)],
      "read history",
    );
    return storedRunOf(row, calls);
  }

  async answeredApprovals(limit: number) {
    const rows = await this.#query(
      answeredApprovalsQuery("$1"),
      [Math.max(0, Math.trunc(limit))],
      "read history",
    );
    return rows.map(answeredApprovalOf);
  }

  async count(options: { failed?: boolean } = {}) {
    const [row] = await this.#query(
      `SELECT count(*) AS n FROM runs ${options.failed ? "WHERE status = 'failed'" : ""}`,
      [],
      "count history",
    );
    return Number(row?.n ?? 0);
  }

  async prune(options: { maxRuns: number; maxAgeDays: number }) {
    const cutoff = this.#now() - options.maxAgeDays * DAY_MS;
    const keep = Math.max(0, Math.trunc(options.maxRuns));
    let deleted = 0;
    const batches: [string, number][] = [
      [
        `DELETE FROM runs WHERE rid IN
           (SELECT rid FROM runs WHERE started_at < $1 LIMIT ${PRUNE_BATCH})`,
        cutoff,
      ],
      [
        `DELETE FROM runs WHERE rid IN (SELECT rid FROM runs
           ORDER BY started_at DESC, rid DESC LIMIT ${PRUNE_BATCH} OFFSET $1)`,
        keep,
      ],
    ];
    for (const [text, value] of batches) {
      for (;;) {
        let changes: number;
        try {
          changes = (await this.#pool.sql.unsafe(text, [value])).count;
        } catch (error) {
          throw describe(error, `Cannot prune history (${this.#where})`);
        }
        deleted += changes;
        if (changes < PRUNE_BATCH) break;
      }
    }
    return { deleted };
  }

  async #query(text: string, params: (string | number)[], what: string): Promise<Row[]> {
    try {
      return [...await this.#pool.sql.unsafe(text, params)];
    } catch (error) {
      throw describe(error, `Cannot ${what} (${this.#where})`);
    }
  }
}

async function migrate(sql: Sql): Promise<void> {
  await sql.unsafe(
    "CREATE TABLE IF NOT EXISTS gateway_schema (version INTEGER NOT NULL)",
  ).catch((error) => {
    // Two instances creating the table at once: one wins, the other sees it exist.
    if (codeOf(error) !== "23505" && codeOf(error) !== "42P07") throw error;
  });
  const latest = POSTGRES_MIGRATIONS.length;
  for (;;) {
    const done = await sql.begin(async (tx) => {
      await tx.unsafe("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
      const rows = await tx.unsafe("SELECT version FROM gateway_schema");
      if (rows.length === 0) await tx.unsafe("INSERT INTO gateway_schema (version) VALUES (0)");
      const found = rows.length === 0 ? 0 : Number(rows[0]?.version);
      if (found > latest) {
        throw new Error(
          `schema version ${found} is newer than this gateway knows (${latest}); upgrade the gateway`,
        );
      }
      if (found === latest) return true;
      try {
        await tx.unsafe(POSTGRES_MIGRATIONS[found] ?? "");
      } catch (error) {
        throw new Error(`migration to schema version ${found + 1} failed: ${messageOf(error)}`, {
          cause: error,
        });
      }
      await tx.unsafe("UPDATE gateway_schema SET version = $1", [found + 1]);
      return false;
    });
    if (done) return;
  }
}

async function currentVersion(sql: Sql): Promise<number> {
  const rows = await sql.unsafe("SELECT version FROM gateway_schema");
  return Number(rows[0]?.version ?? 0);
}

const UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "57P01", // admin_shutdown
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now (starting up / shutting down)
]);

/** Whether `error` means the database is unreachable right now (worth a retry). */
export function isUnavailable(error: unknown): boolean {
  const code = codeOf(error);
  return UNAVAILABLE_CODES.has(code) || code.startsWith("08");
}

function describe(error: unknown, doing: string): Error {
  const code = codeOf(error);
  if (isUnavailable(error)) {
    return new StoreUnavailableError(
      `${doing}: the database is unavailable (${code}: ${messageOf(error)}); ` +
        `the gateway reconnects by itself once it is back`,
      code,
      { cause: error },
    );
  }
  return new Error(`${doing}: ${messageOf(error)}`, { cause: error });
}

function codeOf(error: unknown): string {
  if (typeof error === "object" && error !== null && "code" in error) {
    return String((error as { code: unknown }).code);
  }
  return "";
}

/** PostgreSQL text cannot hold NUL; it becomes U+FFFD (SQLite keeps it as is). */
function noNul<T extends string | number | null>(value: T): T {
  return (typeof value === "string" && value.includes("\0")
    ? value.replaceAll("\0", "\uFFFD")
    : value) as T;
}

/** `postgres://user:secret@host/db` → `postgres://user@host/db`. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = "";
    return parsed.toString();
  } catch {
    return "(the configured PostgreSQL URL)";
  }
}

class AttemptTimeout extends Error {
  readonly code = "ETIMEDOUT";
}

/** `promise`, or an `ETIMEDOUT` rejection (after calling `onTimeout`) once `ms` pass first. */
async function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => void): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(new AttemptTimeout(`no answer in ${ms} ms`));
    }, ms);
  });
  // The abandoned attempt may still fail later; that failure is expected and not reported.
  promise.catch(() => {});
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
