/**
 * The connection pool the PostgreSQL store queries through, replaceable as a whole. When
 * PostgreSQL goes away in the middle of a write, the `postgres` driver's deferred socket write
 * can run after the socket is gone (Deno's `node:net` throws where Node emits `error`, and a
 * cleared immediate may still fire): the throw escapes every query, and the connection object
 * keeps a stale write buffer that stalls its later queries. Such an error is caught here (only
 * errors thrown from the driver's own files), logged instead of ending the gateway, and every
 * pool is replaced by a fresh one; queries in flight on the old pool fail with
 * `CONNECTION_ENDED` and are retried by their callers.
 * @module
 */

import type postgres from "postgres";

type Sql = postgres.Sql;

/** Frames of the `postgres` driver in a stack trace. */
const DRIVER_FRAME = /[\\/]postgres[\\/]\d+\.\d+\.\d+[\\/]src[\\/]/;
const livePools = new Set<PostgresPool>();
let guarded = false;

/** A pool that {@linkcode PostgresPool.renew} swaps for a fresh one. */
export class PostgresPool {
  #make: () => Sql;
  #sql: Sql;
  #log: (message: string) => void;
  #renewListeners = new Set<() => void>();

  /** Opens the first pool with `make`; `log` hears about renewals. */
  constructor(make: () => Sql, log: (message: string) => void = () => {}) {
    this.#make = make;
    this.#sql = make();
    this.#log = log;
    livePools.add(this);
    guardDriverErrors();
  }

  /** The current pool; read it for every query (it changes on renewal). */
  get sql(): Sql {
    return this.#sql;
  }

  /** Replaces the pool; the old one is ended at once (its queries fail and are retried). */
  renew(reason: string): void {
    const old = this.#sql;
    this.#sql = this.#make();
    this.#log(`PostgreSQL connection lost mid-write (${reason}); reconnecting with a new pool`);
    old.end({ timeout: 0 }).catch(() => {});
    for (const listener of this.#renewListeners) listener();
  }

  /** Told after each renewal (to listen again on the new pool); returns unsubscribe. */
  onRenew(listener: () => void): () => void {
    this.#renewListeners.add(listener);
    return () => this.#renewListeners.delete(listener);
  }

  /** Ends the pool, waiting up to `timeoutSeconds` for queries in flight. */
  async end(timeoutSeconds: number): Promise<void> {
    livePools.delete(this);
    await this.#sql.end({ timeout: timeoutSeconds });
  }
}

function guardDriverErrors(): void {
  if (guarded) return;
  guarded = true;
  const fromDriver = (reason: unknown): reason is Error =>
    reason instanceof Error && DRIVER_FRAME.test(reason.stack ?? "");
  const recover = (error: Error) => {
    for (const pool of livePools) pool.renew(error.message);
  };
  globalThis.addEventListener("unhandledrejection", (event) => {
    if (!fromDriver(event.reason)) return;
    event.preventDefault();
    recover(event.reason);
  });
  globalThis.addEventListener("error", (event) => {
    if (!fromDriver(event.error)) return;
    event.preventDefault();
    recover(event.error);
  });
}
