/**
 * What several gateway instances on one PostgreSQL database tell each other: each
 * instance renews a lease; runs in flight are rows tied to the instance running them, so `wait`
 * on any instance can follow them (`LISTEN/NOTIFY`) and the others mark them `Crashed` once the
 * instance's lease expires; calls held for approval are rows any instance can answer, and the
 * answer reaches the instance holding the call by notification.
 * @module
 */

import type postgres from "postgres";
import type { PostgresPool } from "./postgres_pool.ts";
import type { PendingApproval } from "../protocol/wire_views.ts";
import type { Coordination, LiveRun } from "./gateway_store.ts";
import type { HistoryRedactor } from "./run_history.ts";
import { messageOf } from "../protocol/message_of.ts";

/** Channel a finished (or crashed) run's id is sent on. */
export const RUN_DONE_CHANNEL = "gateway_run_done";
/** Channel an answered approval's id is sent on. */
export const APPROVAL_CHANNEL = "gateway_approval";

/** The database clock in ms, so instances with skewed clocks agree on leases. */
const NOW_MS = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

type Sql = postgres.Sql;

/** Options of {@linkcode PostgresCoordination.start}. */
export interface CoordinationOptions {
  /**
   * How long an instance counts as alive after its last renewal; its runs are `Crashed` once
   * it passes. Renewed every third of it.
   * @default {15000}
   */
  leaseMs?: number;
  /** Told about background failures (a renewal that could not reach the database …). */
  log?: (message: string) => void;
}

/** Leases, live runs and shared approvals over one pool. */
export class PostgresCoordination implements Coordination {
  /** This instance's id: host, pid and a random suffix. */
  readonly instanceId: string;
  #pool: PostgresPool;
  #redactor: HistoryRedactor;
  #leaseMs = 15_000;
  #log: (message: string) => void = () => {};
  #timer: ReturnType<typeof setInterval> | null = null;
  #runWaiters = new Map<string, Set<() => void>>();
  #answerListeners = new Set<(id: string, decision: ApprovalAnswer) => void>();
  #stopped = false;
  /** When this instance's renewals last started succeeding again (null while failing). */
  #healthySince: number | null = null;

  /** Uses `sql` (migrated) and the history redactor for crash records. */
  constructor(pool: PostgresPool, redactor: HistoryRedactor) {
    this.#pool = pool;
    this.#redactor = redactor;
    this.instanceId = `${Deno.hostname()}:${Deno.pid}:${crypto.randomUUID().slice(0, 8)}`;
  }

  /** Takes the lease, starts renewing it and sweeping dead instances' runs, and listens. */
  async start(options: CoordinationOptions = {}): Promise<void> {
    this.#leaseMs = options.leaseMs ?? 15_000;
    this.#log = options.log ?? this.#log;
    await this.#renew();
    await this.#listen();
    // A replaced pool (postgres_pool.ts) listens again; the polls cover the gap.
    this.#pool.onRenew(() => {
      this.#listen().catch((error) => this.#log(`cannot listen again: ${messageOf(error)}`));
    });
    this.#timer = setInterval(() => {
      this.#tick().catch((error) => {
        this.#healthySince = null;
        this.#log(`cannot renew the instance lease or sweep crashed runs: ${messageOf(error)}`);
      });
    }, Math.max(50, Math.floor(this.#leaseMs / 3)));
  }

  async #listen(): Promise<void> {
    const sql = this.#pool.sql;
    await Promise.all([
      sql.listen(RUN_DONE_CHANNEL, (runId) => this.#runDone(runId)),
      sql.listen(APPROVAL_CHANNEL, (id) => void this.#approvalAnswered(id)),
    ]);
  }

  /** Stops renewing; the instance's row goes, so nothing of it is left to sweep. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== null) clearInterval(this.#timer);
    await this.#pool.sql.unsafe("DELETE FROM gateway_instances WHERE id = $1", [this.instanceId])
      .catch(() => {});
  }

  async started(run: LiveRun): Promise<void> {
    const row = this.#redactor.row({
      ...run,
      durationMs: 0,
      status: "failed",
      errorKind: "Crashed",
      errorMessage: `The gateway instance running this run (${this.instanceId}) stopped ` +
        `renewing its lease: it was killed or lost the database; the run's outcome is unknown`,
      stdout: "",
      stderr: "",
      result: null,
      exitCode: null,
      toolCalls: [],
    });
    await this.#pool.sql.unsafe(
      "INSERT INTO live_runs (id, instance, started_at, record) VALUES ($1, $2, $3, $4)",
      [run.runId, this.instanceId, run.startedAt, JSON.stringify(row)],
    );
  }

  async isLive(runId: string): Promise<boolean> {
    const rows = await this.#pool.sql.unsafe("SELECT 1 FROM live_runs WHERE id = $1", [runId]);
    return rows.length > 0;
  }

  async waitDone(runId: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    let wake: () => void = () => {};
    const woken = new Promise<void>((resolve) => (wake = resolve));
    const waiters = this.#runWaiters.get(runId) ?? new Set();
    waiters.add(wake);
    this.#runWaiters.set(runId, waiters);
    const deadline = timeoutMs > 0 ? Date.now() + timeoutMs : Infinity;
    signal?.addEventListener("abort", wake, { once: true });
    try {
      for (;;) {
        if (!(await this.isLive(runId))) return true;
        const left = deadline - Date.now();
        if (left <= 0 || signal?.aborted || this.#stopped) return false;
        // A notification wakes us at once; the poll covers one lost while reconnecting.
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          woken,
          new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.min(left, 1000)))),
        ]);
        clearTimeout(timer);
      }
    } finally {
      signal?.removeEventListener("abort", wake);
      waiters.delete(wake);
      if (waiters.size === 0) this.#runWaiters.delete(runId);
    }
  }

  /**
   * Marks the runs of every instance whose lease expired as `Crashed` in history, once (the
   * live row is deleted in the same transaction), and tells waiters. Returns their ids.
   */
  async sweep(): Promise<string[]> {
    return await this.#pool.sql.begin(async (tx) => {
      const dead = await tx.unsafe(
        `DELETE FROM live_runs l WHERE NOT EXISTS (
           SELECT 1 FROM gateway_instances i WHERE i.id = l.instance AND i.lease_until > ${NOW_MS})
         RETURNING id, started_at, record`,
      );
      const [clock] = await tx.unsafe(`SELECT ${NOW_MS} AS now`);
      const now = Number(clock?.now);
      for (const run of dead) {
        const row = JSON.parse(String(run.record)) as Record<string, string | number | null>;
        row.duration_ms = Math.max(0, now - Number(run.started_at));
        const columns = Object.keys(row);
        await tx.unsafe(
          `INSERT INTO runs (${columns.join(", ")})
           VALUES (${columns.map((_, i) => `$${i + 1}`).join(", ")}) ON CONFLICT (id) DO NOTHING`,
          columns.map((c) => row[c] ?? null),
        );
        await tx.unsafe("SELECT pg_notify($1, $2)", [RUN_DONE_CHANNEL, String(run.id)]);
      }
      await tx.unsafe(
        `DELETE FROM held_approvals a WHERE NOT EXISTS (
           SELECT 1 FROM gateway_instances i WHERE i.id = a.instance AND i.lease_until > ${NOW_MS})`,
      );
      await tx.unsafe(`DELETE FROM gateway_instances WHERE lease_until <= ${NOW_MS}`);
      return dead.map((run) => String(run.id));
    });
  }

  async held(view: PendingApproval): Promise<void> {
    await this.#pool.sql.unsafe(
      "INSERT INTO held_approvals (id, run_id, instance, view) VALUES ($1, $2, $3, $4)",
      [view.id, view.runId, this.instanceId, JSON.stringify(view)],
    );
  }

  async settled(id: string): Promise<void> {
    await this.#pool.sql.unsafe("DELETE FROM held_approvals WHERE id = $1", [id]);
  }

  async pendingElsewhere(): Promise<PendingApproval[]> {
    const rows = await this.#pool.sql.unsafe(
      "SELECT view FROM held_approvals WHERE instance <> $1 AND answer IS NULL ORDER BY id",
      [this.instanceId],
    );
    return rows.map((row) => JSON.parse(String(row.view)) as PendingApproval);
  }

  async answer(id: string, decision: ApprovalAnswer): Promise<number> {
    return await this.#pool.sql.begin(async (tx) => {
      const rows = await tx.unsafe(
        `UPDATE held_approvals SET answer = $2
         WHERE (id = $1 OR run_id = $1) AND answer IS NULL AND instance <> $3 RETURNING id`,
        [id, JSON.stringify(decision), this.instanceId],
      );
      for (const row of rows) {
        await tx.unsafe("SELECT pg_notify($1, $2)", [APPROVAL_CHANNEL, String(row.id)]);
      }
      return rows.length;
    });
  }

  onAnswer(listener: (id: string, decision: ApprovalAnswer) => void): () => void {
    this.#answerListeners.add(listener);
    return () => this.#answerListeners.delete(listener);
  }

  /**
   * Renews the lease, then sweeps, but only after renewing for a whole lease without a failure:
   * after a database outage every live instance gets one lease to renew before anyone's runs
   * are declared crashed (the outage, not the instances, stopped the renewals).
   */
  async #tick(): Promise<void> {
    await this.#renew();
    this.#healthySince ??= Date.now();
    if (Date.now() - this.#healthySince >= this.#leaseMs) await this.sweep();
    await this.#collectAnswers();
  }

  async #renew(): Promise<void> {
    await this.#pool.sql.unsafe(
      `INSERT INTO gateway_instances (id, lease_until) VALUES ($1, ${NOW_MS} + $2)
       ON CONFLICT (id) DO UPDATE SET lease_until = excluded.lease_until`,
      [this.instanceId, this.#leaseMs],
    );
  }

  /** Answers whose notification was lost (sent while this instance was reconnecting). */
  async #collectAnswers(): Promise<void> {
    const rows = await this.#pool.sql.unsafe(
      "SELECT id FROM held_approvals WHERE instance = $1 AND answer IS NOT NULL",
      [this.instanceId],
    );
    for (const row of rows) await this.#approvalAnswered(String(row.id));
  }

  #runDone(runId: string): void {
    for (const wake of this.#runWaiters.get(runId) ?? []) wake();
  }

  async #approvalAnswered(id: string): Promise<void> {
    try {
      const [row] = await this.#pool.sql.unsafe(
        "SELECT answer FROM held_approvals WHERE id = $1 AND instance = $2",
        [id, this.instanceId],
      );
      if (row === undefined || row.answer === null) return;
      const decision = JSON.parse(String(row.answer)) as ApprovalAnswer;
      for (const listener of this.#answerListeners) listener(id, decision);
    } catch (error) {
      this.#log(`cannot read the answer to approval "${id}": ${messageOf(error)}`);
    }
  }
}

/** An answer to a held call, as stored and sent between instances. */
export interface ApprovalAnswer {
  allowed: boolean;
  by: string;
  at: number;
}
