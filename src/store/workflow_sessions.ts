/**
 * Workflow sessions in `gateway.db`: per session name, the workflow file it runs (path,
 * text and hash), its vars and position, and every event with its time, so workflows survive a
 * restart and several run at once.
 * @module
 */

import type { GatewayDatabase } from "./gateway_database.ts";

/** Whether a session's workflow is still going. */
export type WorkflowSessionStatus = "running" | "complete" | "aborted";

/**
 * Kinds of recorded event (the `workflow_events.kind` column). Defined here, below the
 * workflow engine, which decides the events and re-uses this type for them.
 */
export type WorkflowSessionEventKind =
  | "start"
  | "step"
  | "loop"
  | "end-loop"
  | "abort"
  | "reset"
  | "complete";

/** A scalar variable value, as given in the file or with `--var`. */
export type WorkflowSessionVar = string | number | boolean;

/** One workflow run in a session. A session name may have had several; the latest counts. */
export interface WorkflowSession {
  id: number;
  name: string;
  /** Absolute path of the workflow file. */
  file: string;
  /** sha256 of the file text when the run started (or was reset). */
  fileHash: string;
  /** The file text the run follows, so it can be shown even when the file changed. */
  fileText: string;
  vars: Record<string, WorkflowSessionVar>;
  status: WorkflowSessionStatus;
  /** 0-based current step. */
  step: number;
  /** 1-based loop pass of the current step. */
  pass: number;
  /** ms since the epoch. */
  createdAt: number;
  updatedAt: number;
}

/** One recorded event of a session's workflow run. */
export interface WorkflowSessionEvent {
  id: number;
  sessionId: number;
  /** ms since the epoch. */
  at: number;
  kind: WorkflowSessionEventKind;
  /** 1-based step the event is about. */
  step: number | null;
  pass: number | null;
  reason: string | null;
}

/** An event to append; the store assigns the id and the session. */
export type NewWorkflowSessionEvent = Omit<WorkflowSessionEvent, "id" | "sessionId">;

/** The session position and file fields an update may change. */
export interface WorkflowSessionUpdate {
  status: WorkflowSessionStatus;
  step: number;
  pass: number;
  at: number;
  /** Set together when a reset adopts the current file. */
  file?: { fileHash: string; fileText: string };
  /** The events that got the session here, appended in the same transaction. */
  events: readonly NewWorkflowSessionEvent[];
}

/** Where a session run is: what {@linkcode WorkflowSessions.advance} checks before moving it. */
export type WorkflowSessionPosition = Pick<
  WorkflowSession,
  "status" | "step" | "pass" | "fileHash"
>;

const EVENT_KINDS: readonly WorkflowSessionEventKind[] = [
  "start",
  "step",
  "loop",
  "end-loop",
  "abort",
  "reset",
  "complete",
]; // deno-fmt-ignore

/**
 * The workflow session tables. The workflow service reads and writes through this inside one
 * {@linkcode WorkflowSessions.transaction} per command, so two clients stepping the same session
 * never both advance it from the same position.
 */
export class WorkflowSessions {
  #db: GatewayDatabase;

  /** Uses `database` (already migrated) for storage. */
  constructor(database: GatewayDatabase) {
    this.#db = database;
  }

  /** Runs `fn` in one write transaction (`BEGIN IMMEDIATE`): read, decide, write atomically. */
  transaction<T>(fn: () => T): T {
    return this.#db.transaction(fn);
  }

  /** The latest workflow run of session `name`, or null when the session never ran one. */
  latest(name: string): WorkflowSession | null {
    const row = this.#db.prepare(
      "SELECT * FROM workflow_sessions WHERE name = ? ORDER BY id DESC LIMIT 1",
    ).get(name);
    return row === undefined ? null : sessionOf(row);
  }

  /** Every session whose latest workflow run is still running, most recently used first. */
  running(): WorkflowSession[] {
    return this.#db.prepare(
      "SELECT * FROM workflow_sessions WHERE status = 'running' ORDER BY updated_at DESC, id DESC",
    ).all().map(sessionOf);
  }

  /** Records a new running workflow in session `name` with its first events. */
  create(
    input: Omit<WorkflowSession, "id" | "status" | "createdAt" | "updatedAt"> & { at: number },
    events: readonly NewWorkflowSessionEvent[],
  ): WorkflowSession {
    return this.#db.transaction(() => {
      const { lastInsertRowid } = this.#db.prepare(
        `INSERT INTO workflow_sessions
           (name, file, file_hash, file_text, vars, status, step, pass, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, 'running', ?, ?, ?, ?)`,
      ).run(
        input.name,
        input.file,
        input.fileHash,
        input.fileText,
        JSON.stringify(input.vars),
        input.step,
        input.pass,
        input.at,
        input.at,
      );
      const id = Number(lastInsertRowid);
      this.#appendEvents(id, events);
      const row = this.#db.prepare("SELECT * FROM workflow_sessions WHERE id = ?").get(id);
      if (row === undefined) throw new Error(`Cannot read back workflow session ${id}`);
      return sessionOf(row);
    });
  }

  /** Moves session run `id` to a new position and appends the events that got it there. */
  update(id: number, update: WorkflowSessionUpdate): void {
    this.#db.transaction(() => {
      const changes = this.#db.prepare(
        `UPDATE workflow_sessions SET status = ?, step = ?, pass = ?, updated_at = ?,
           file_hash = coalesce(?, file_hash), file_text = coalesce(?, file_text)
         WHERE id = ?`,
      ).run(
        update.status,
        update.step,
        update.pass,
        update.at,
        update.file?.fileHash ?? null,
        update.file?.fileText ?? null,
        id,
      ).changes;
      if (Number(changes) !== 1) throw new Error(`Cannot update workflow session ${id}: not found`);
      this.#appendEvents(id, update.events);
    });
  }

  /**
   * Records a new running workflow in session `name` unless one is running there already; then
   * nothing is written and that one is returned. One transaction: two clients starting the same
   * session never both succeed.
   */
  createUnlessRunning(
    input: Omit<WorkflowSession, "id" | "status" | "createdAt" | "updatedAt"> & { at: number },
    events: readonly NewWorkflowSessionEvent[],
  ): { created: WorkflowSession } | { running: WorkflowSession } {
    return this.#db.transaction(() => {
      const previous = this.latest(input.name);
      if (previous !== null && previous.status === "running") return { running: previous };
      return { created: this.create(input, events) };
    });
  }

  /**
   * Moves session run `id` only if it is still where the caller read it (`from`), appending the
   * events; false when another client moved, reset or restarted it meanwhile.
   */
  advance(id: number, from: WorkflowSessionPosition, update: WorkflowSessionUpdate): boolean {
    return this.#db.transaction(() => {
      const current = this.#db.prepare(
        "SELECT status, step, pass, file_hash FROM workflow_sessions WHERE id = ?",
      ).get(id);
      if (
        current === undefined || current.status !== from.status ||
        Number(current.step) !== from.step || Number(current.pass) !== from.pass ||
        current.file_hash !== from.fileHash
      ) return false;
      this.update(id, update);
      return true;
    });
  }

  /** The events of session run `id`, oldest first. */
  events(id: number): WorkflowSessionEvent[] {
    return this.#db.prepare(
      "SELECT * FROM workflow_events WHERE session_id = ? ORDER BY id",
    ).all(id).map(sessionEventOf);
  }

  #appendEvents(id: number, events: readonly NewWorkflowSessionEvent[]): void {
    const insert = this.#db.prepare(
      "INSERT INTO workflow_events (session_id, at, kind, step, pass, reason) VALUES (?, ?, ?, ?, ?, ?)",
    );
    for (const event of events) {
      insert.run(id, event.at, event.kind, event.step, event.pass, event.reason);
    }
  }
}

/** An event from its `workflow_events` row (SQLite or PostgreSQL). */
export function sessionEventOf(row: Record<string, unknown>): WorkflowSessionEvent {
  return {
    id: Number(row.id),
    sessionId: Number(row.session_id),
    at: Number(row.at),
    kind: eventKindOf(row.kind),
    step: nullableNumber(row.step),
    pass: nullableNumber(row.pass),
    reason: row.reason === null || row.reason === undefined ? null : String(row.reason),
  };
}

/** A session from its `workflow_sessions` row (SQLite or PostgreSQL). */
export function sessionOf(row: Record<string, unknown>): WorkflowSession {
  return {
    id: Number(row.id),
    name: String(row.name),
    file: String(row.file),
    fileHash: String(row.file_hash),
    fileText: String(row.file_text),
    vars: varsOf(row.vars),
    status: row.status === "running" || row.status === "complete" ? row.status : "aborted",
    step: Number(row.step),
    pass: Number(row.pass),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

function varsOf(value: unknown): Record<string, WorkflowSessionVar> {
  const vars: Record<string, WorkflowSessionVar> = {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(String(value));
  } catch {
    return vars;
  }
  if (typeof parsed !== "object" || parsed === null) return vars;
  for (const [key, item] of Object.entries(parsed)) {
    if (typeof item === "string" || typeof item === "number" || typeof item === "boolean") {
      vars[key] = item;
    }
  }
  return vars;
}

function eventKindOf(value: unknown): WorkflowSessionEventKind {
  // The column's CHECK constraint admits only these names.
  return EVENT_KINDS.find((kind) => kind === value) ?? "step";
}

function nullableNumber(value: unknown): number | null {
  return value === null || value === undefined ? null : Number(value);
}
