/**
 * The gateway's SQLite file (`gateway.db`): connection settings, schema migrations and the
 * transaction helper every store module writes through.
 * @module
 */

import { DatabaseSync, type StatementSync } from "node:sqlite";
import { dirname } from "node:path";
import { messageOf } from "../protocol/message_of.ts";

/**
 * The schema, one entry per version: entry `i` takes `PRAGMA user_version` from `i` to `i + 1`.
 * Exported so tests (and a future `gateway doctor`) can see what each version holds. Append
 * only: a shipped entry never changes.
 */
export const GATEWAY_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE runs (
    rid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    started_at INTEGER NOT NULL,
    duration_ms INTEGER NOT NULL,
    name TEXT,
    source TEXT NOT NULL,
    args TEXT NOT NULL,
    stdin_bytes INTEGER NOT NULL,
    cwd TEXT NOT NULL,
    client TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
    error_kind TEXT,
    error_message TEXT,
    stdout TEXT NOT NULL,
    stdout_bytes INTEGER NOT NULL,
    stdout_capped INTEGER NOT NULL,
    stderr TEXT NOT NULL,
    stderr_bytes INTEGER NOT NULL,
    stderr_capped INTEGER NOT NULL,
    result TEXT,
    result_capped INTEGER NOT NULL,
    exit_code INTEGER,
    tool_call_count INTEGER NOT NULL
  );
  CREATE INDEX runs_by_start ON runs (started_at);
  CREATE INDEX runs_failed_by_start ON runs (started_at) WHERE status = 'failed';
  CREATE TABLE tool_calls (
    run_rid INTEGER NOT NULL REFERENCES runs (rid) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    namespace TEXT NOT NULL,
    tool TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    duration_ms INTEGER NOT NULL,
    ok INTEGER NOT NULL,
    error_kind TEXT,
    PRIMARY KEY (run_rid, seq)
  ) WITHOUT ROWID;
  CREATE TABLE workflow_sessions (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    file TEXT NOT NULL,
    file_hash TEXT NOT NULL,
    file_text TEXT NOT NULL,
    vars TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('running', 'complete', 'aborted')),
    step INTEGER NOT NULL,
    pass INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX workflow_sessions_by_name ON workflow_sessions (name, id);
  CREATE UNIQUE INDEX workflow_sessions_one_running ON workflow_sessions (name)
    WHERE status = 'running';
  CREATE TABLE workflow_events (
    id INTEGER PRIMARY KEY,
    session_id INTEGER NOT NULL REFERENCES workflow_sessions (id) ON DELETE CASCADE,
    at INTEGER NOT NULL,
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
  // 3: run state shared by several instances on one database: which instance is
  // alive until when, which runs are in flight where, and calls held for approval. A lone
  // SQLite gateway keeps these in memory; the tables exist so both stores share one numbering.
  `
  CREATE TABLE gateway_instances (id TEXT PRIMARY KEY, lease_until INTEGER NOT NULL);
  CREATE TABLE live_runs (
    id TEXT PRIMARY KEY,
    instance TEXT NOT NULL,
    started_at INTEGER NOT NULL,
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

/** Options of {@linkcode openGatewayDatabase}. */
export interface OpenGatewayDatabaseOptions {
  /**
   * Size the `-wal` file is truncated back to after a checkpoint, in bytes.
   * @default {16777216}
   */
  journalSizeLimit?: number;
  /**
   * How long a writer waits for another connection's lock before `SQLITE_BUSY`, in ms.
   * @default {5000}
   */
  busyTimeoutMs?: number;
}

/**
 * One open connection to `gateway.db`. Store modules (run history, workflow sessions) take one
 * of these rather than a raw `DatabaseSync`, so every write goes through the same settings and
 * the same `BEGIN IMMEDIATE` transactions.
 */
export class GatewayDatabase {
  /** The file this connection is open on. */
  readonly path: string;
  #db: DatabaseSync;
  #statements = new Map<string, StatementSync>();
  #depth = 0;

  /** Wraps an already configured connection; use {@linkcode openGatewayDatabase} instead. */
  constructor(db: DatabaseSync, path: string) {
    this.#db = db;
    this.path = path;
  }

  /** A prepared statement for `sql`, cached per connection so hot paths parse it once. */
  prepare(sql: string): StatementSync {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /** Runs one or more SQL statements that return nothing. */
  exec(sql: string): void {
    this.#db.exec(sql);
  }

  /**
   * Runs `fn` inside a write transaction taken with `BEGIN IMMEDIATE` (so a second writer waits
   * up to the busy timeout instead of failing half-way), commits, and returns its value. A throw
   * rolls everything back. Nested calls become savepoints. `fn` must be synchronous.
   */
  transaction<T>(fn: () => T): T {
    const nested = this.#depth > 0;
    const savepoint = `sp_${this.#depth}`;
    this.#db.exec(nested ? `SAVEPOINT ${savepoint}` : "BEGIN IMMEDIATE");
    this.#depth++;
    let value: T;
    try {
      value = fn();
      if (value instanceof Promise) {
        throw new TypeError(
          `Cannot run transaction on "${this.path}": the callback returned a promise; it must be synchronous`,
        );
      }
    } catch (error) {
      this.#depth--;
      this.#rollback(nested ? savepoint : null);
      throw error;
    }
    this.#depth--;
    try {
      this.#db.exec(nested ? `RELEASE ${savepoint}` : "COMMIT");
    } catch (error) {
      this.#rollback(nested ? savepoint : null);
      throw new Error(`Cannot commit transaction on "${this.path}": ${messageOf(error)}`, {
        cause: error,
      });
    }
    return value;
  }

  /** The schema version the file is at (`PRAGMA user_version`). */
  get schemaVersion(): number {
    return userVersion(this.#db);
  }

  /**
   * Copies the WAL into the main file and truncates it; the server calls this when idle so the
   * `-wal` file stays small while readers come and go.
   */
  checkpoint(): void {
    this.#db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  }

  /** Gives free pages back to the file system (the file shrinks after deletions). */
  incrementalVacuum(): void {
    // `PRAGMA incremental_vacuum` frees pages one row at a time; iterate to run it to the end.
    for (const _ of this.#db.prepare("PRAGMA incremental_vacuum").iterate()) {
      // each row is one freed page
    }
  }

  /** `PRAGMA integrity_check` rows: `["ok"]` for a sound file. For tests and diagnostics. */
  integrityCheck(): string[] {
    return this.#db.prepare("PRAGMA integrity_check").all().map((row) =>
      String(Object.values(row)[0])
    );
  }

  /** Closes the connection; later calls throw. */
  close(): void {
    this.#statements.clear();
    if (this.#db.isOpen) this.#db.close();
  }

  #rollback(savepoint: string | null): void {
    try {
      if (savepoint === null) {
        if (this.#db.isTransaction) this.#db.exec("ROLLBACK");
      } else {
        this.#db.exec(`ROLLBACK TO ${savepoint}; RELEASE ${savepoint}`);
      }
    } catch {
      // SQLite may already have rolled back (e.g. after SQLITE_FULL); nothing is left to undo.
    }
  }
}

/**
 * Opens (creating it and its directory when missing) the gateway database at `path`, applies the
 * connection settings and brings the schema up to date. Each migration runs inside its own
 * `BEGIN IMMEDIATE` transaction together with its `user_version` bump, so a process killed
 * mid-migration leaves the previous version behind and the next open finishes the work.
 */
export function openGatewayDatabase(
  path: string,
  options: OpenGatewayDatabaseOptions = {},
): GatewayDatabase {
  const { journalSizeLimit = 16 * 1024 * 1024, busyTimeoutMs = 5000 } = options;
  createPrivateFile(path);
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(path);
  } catch (error) {
    throw new Error(`Cannot open database "${path}": ${messageOf(error)}`, { cause: error });
  }
  try {
    db.exec(`PRAGMA busy_timeout = ${Math.trunc(busyTimeoutMs)}`);
    if (!hasTables(db)) {
      // auto_vacuum only takes effect before the first table exists; a file left in WAL mode
      // by an interrupted first open also needs a VACUUM for the setting to stick.
      db.exec("PRAGMA auto_vacuum = INCREMENTAL");
      if (pragmaNumber(db, "auto_vacuum") !== 2) db.exec("VACUUM");
    }
    db.exec("PRAGMA journal_mode = WAL");
    // NORMAL in WAL mode: a commit survives a crash or kill -9 of the gateway; only a
    // power loss can take the last commits back. FULL would add an fsync to
    // every run's answer.
    db.exec("PRAGMA synchronous = NORMAL");
    db.exec("PRAGMA foreign_keys = ON");
    db.exec("PRAGMA secure_delete = ON");
    db.exec(`PRAGMA journal_size_limit = ${Math.trunc(journalSizeLimit)}`);
    migrate(db, path);
  } catch (error) {
    db.close();
    if (error instanceof Error && error.message.startsWith("Cannot ")) throw error;
    throw new Error(`Cannot open database "${path}": ${messageOf(error)}`, { cause: error });
  }
  return new GatewayDatabase(db, path);
}

function migrate(db: DatabaseSync, path: string): void {
  const latest = GATEWAY_MIGRATIONS.length;
  const found = userVersion(db);
  if (found > latest) {
    throw new Error(
      `Cannot open database "${path}": schema version ${found} is newer than this gateway knows (${latest})`,
    );
  }
  for (let index = found; index < latest; index++) {
    const target = index + 1;
    db.exec("BEGIN IMMEDIATE");
    try {
      // Another process may have migrated while this one waited for the lock.
      if (userVersion(db) < target) {
        db.exec(GATEWAY_MIGRATIONS[index] ?? "");
        db.exec(`PRAGMA user_version = ${target}`);
      }
      db.exec("COMMIT");
    } catch (error) {
      if (db.isTransaction) db.exec("ROLLBACK");
      throw new Error(
        `Cannot migrate database "${path}" to schema version ${target}: ${messageOf(error)}`,
        { cause: error },
      );
    }
  }
}

function createPrivateFile(path: string): void {
  if (path === ":memory:") return;
  try {
    Deno.mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    // SQLite gives the -wal and -shm files the main file's mode, so creating it 0600 keeps
    // history (sources, outputs) private to the user.
    Deno.openSync(path, { create: true, write: true, mode: 0o600 }).close();
  } catch (error) {
    throw new Error(`Cannot create database "${path}": ${messageOf(error)}`, { cause: error });
  }
}

function hasTables(db: DatabaseSync): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master LIMIT 1").get() !== undefined;
}

function userVersion(db: DatabaseSync): number {
  return pragmaNumber(db, "user_version");
}

function pragmaNumber(db: DatabaseSync, name: string): number {
  const row = db.prepare(`PRAGMA ${name}`).get();
  return row === undefined ? 0 : Number(Object.values(row)[0]);
}
