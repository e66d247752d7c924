/**
 * Workflow sessions in PostgreSQL: the same tables and the same atomic calls as the
 * SQLite store, so `gateway workflow step` works from any instance sharing the database.
 * @module
 */

import type postgres from "postgres";
import type { PostgresPool } from "./postgres_pool.ts";
import type { NewWorkflowSession, WorkflowSessionStore } from "./gateway_store.ts";
import {
  type NewWorkflowSessionEvent,
  sessionEventOf,
  sessionOf,
  type WorkflowSession,
  type WorkflowSessionPosition,
  type WorkflowSessionUpdate,
} from "./workflow_sessions.ts";

type Sql = postgres.Sql;
type Tx = postgres.TransactionSql;

/** The sessions over a pool whose schema is migrated. */
export class PostgresWorkflowSessions implements WorkflowSessionStore {
  #pool: PostgresPool;

  /** Uses `sql` for every call. */
  constructor(pool: PostgresPool) {
    this.#pool = pool;
  }

  async latest(name: string): Promise<WorkflowSession | null> {
    return await latestIn(this.#pool.sql, name, false);
  }

  async running(): Promise<WorkflowSession[]> {
    const rows = await this.#pool.sql.unsafe(
      "SELECT * FROM workflow_sessions WHERE status = 'running' ORDER BY updated_at DESC, id DESC",
    );
    return rows.map(sessionOf);
  }

  async events(id: number) {
    const rows = await this.#pool.sql.unsafe(
      "SELECT * FROM workflow_events WHERE session_id = $1 ORDER BY id",
      [id],
    );
    return rows.map(sessionEventOf);
  }

  async createUnlessRunning(
    input: NewWorkflowSession,
    events: readonly NewWorkflowSessionEvent[],
  ): Promise<{ created: WorkflowSession } | { running: WorkflowSession }> {
    try {
      return await this.#pool.sql.begin(async (tx) => {
        const previous = await latestIn(tx, input.name, true);
        if (previous !== null && previous.status === "running") return { running: previous };
        const [row] = await tx.unsafe(
          `INSERT INTO workflow_sessions
             (name, file, file_hash, file_text, vars, status, step, pass, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, 'running', $6, $7, $8, $8) RETURNING *`,
          [
            input.name,
            input.file,
            input.fileHash,
            input.fileText,
            JSON.stringify(input.vars),
            input.step,
            input.pass,
            input.at,
          ],
        );
        const created = sessionOf(row ?? {});
        await appendEvents(tx, created.id, events);
        return { created };
      });
    } catch (error) {
      // Two instances starting the same session at once: the unique index lets one win.
      if (codeOf(error) !== "23505") throw error;
      const winner = await this.latest(input.name);
      if (winner === null) throw error;
      return { running: winner };
    }
  }

  async advance(
    id: number,
    from: WorkflowSessionPosition,
    update: WorkflowSessionUpdate,
  ): Promise<boolean> {
    return await this.#pool.sql.begin(async (tx) => {
      const moved = await tx.unsafe(
        `UPDATE workflow_sessions SET status = $1, step = $2, pass = $3, updated_at = $4,
           file_hash = coalesce($5, file_hash), file_text = coalesce($6, file_text)
         WHERE id = $7 AND status = $8 AND step = $9 AND pass = $10 AND file_hash = $11`,
        [
          update.status,
          update.step,
          update.pass,
          update.at,
          update.file?.fileHash ?? null,
          update.file?.fileText ?? null,
          id,
          from.status,
          from.step,
          from.pass,
          from.fileHash,
        ],
      );
      if (moved.count !== 1) return false;
      await appendEvents(tx, id, update.events);
      return true;
    });
  }
}

async function latestIn(
  sql: Sql | Tx,
  name: string,
  lock: boolean,
): Promise<WorkflowSession | null> {
  const [row] = await sql.unsafe(
    `SELECT * FROM workflow_sessions WHERE name = $1 ORDER BY id DESC LIMIT 1${
      lock ? " FOR UPDATE" : ""
    }`,
    [name],
  );
  return row === undefined ? null : sessionOf(row);
}

async function appendEvents(
  tx: Tx,
  id: number,
  events: readonly NewWorkflowSessionEvent[],
): Promise<void> {
  for (const event of events) {
    await tx.unsafe(
      "INSERT INTO workflow_events (session_id, at, kind, step, pass, reason) VALUES ($1, $2, $3, $4, $5, $6)",
      [id, event.at, event.kind, event.step, event.pass, event.reason],
    );
  }
}

function codeOf(error: unknown): string {
  return typeof error === "object" && error !== null && "code" in error
    ? String((error as { code: unknown }).code)
    : "";
}
