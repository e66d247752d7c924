/**
 * Bundled tool module `sqlite`: SQL over named SQLite databases kept in
 * `$GATEWAY_DATA_DIR/sqlite/<name>.db`, with bound parameters only.
 * @module
 */

import { Buffer } from "node:buffer";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { join, resolve } from "node:path";

/** A value bound to a `?`, `?NNN`, `:name`, `@name` or `$name` placeholder; booleans bind as 1/0. */
export type SqlParam = string | number | boolean | null;

/**
 * Parameters of one statement: an array for positional placeholders, or an object for named
 * ones (keys with or without the `:`/`@`/`$` prefix).
 */
export type SqlParams = SqlParam[] | { [name: string]: SqlParam };

/**
 * One result row, column name → value. Integers beyond ±2^53 come back as decimal strings and
 * BLOBs as base64 strings; give duplicate column names distinct aliases with `AS`.
 */
export type SqlRow = { [column: string]: string | number | null };

/** Arguments of `sqlite.query`. */
export interface QueryArgs {
  /** Database name: 1-64 letters, digits, `_` or `-` (the file `sqlite/<name>.db`). */
  database: string;
  /** One statement that reads (SELECT, WITH, read-only PRAGMA …). */
  sql: string;
  /** Values for the statement's placeholders. */
  params?: SqlParams;
}

/** Arguments of `sqlite.execute`. */
export interface ExecuteArgs {
  /** Database name: 1-64 letters, digits, `_` or `-`; created on first use. */
  database: string;
  /**
   * One statement, or several separated by `;` when no `params` are given (e.g. a schema).
   * Several statements run in order, each committed on its own unless the text holds
   * `BEGIN`/`COMMIT`.
   */
  sql: string;
  /** Values for the placeholders of a single statement. */
  params?: SqlParams;
}

/** What `sqlite.execute` changed. */
export interface ExecuteResult {
  /** Rows inserted, updated or deleted (for several statements: by all of them). */
  changes: number;
  /** Rowid of the last row this call inserted (0 when it inserted none). */
  lastInsertRowid: number;
}

const NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Runs one reading statement and returns its rows. The connection is set to `query_only`, so a
 * statement that would write is refused.
 *
 * @param args The database, the statement and its parameters.
 * @returns Every row the statement yields, in order.
 */
export function query(args: QueryArgs): SqlRow[] {
  const input = parseArgs(args, "query");
  const file = databaseFile(input.database);
  if (!exists(file)) {
    throw new Error(
      `Cannot query database "${input.database}": it does not exist (databases: ${
        quoteList(databaseNames())
      }); create it with sqlite.execute`,
    );
  }
  return withDatabase({ file, database: input.database, tool: "query" }, (db) => {
    db.exec("PRAGMA query_only = ON");
    const statement = prepareOne(db, input.sql);
    if (statement.tail) {
      throw new Error(
        "the SQL holds more than one statement; sqlite.query runs one (use sqlite.execute for " +
          "scripts)",
      );
    }
    statement.statement.setReadBigInts(true);
    const rows = input.params === undefined
      ? statement.statement.all()
      : Array.isArray(input.params)
      ? statement.statement.all(...input.params)
      : statement.statement.all(input.params);
    return rows.map(toJsonRow);
  });
}

/**
 * Runs statements that change a database (INSERT, UPDATE, DELETE, CREATE …), creating the
 * database file on first use.
 *
 * @param args The database, the SQL and the parameters of a single statement.
 * @returns How many rows changed and the last inserted rowid.
 */
export function execute(args: ExecuteArgs): ExecuteResult {
  const input = parseArgs(args, "execute");
  const file = databaseFile(input.database);
  return withDatabase({ file, database: input.database, tool: "execute" }, (db) => {
    const first = prepareOne(db, input.sql);
    if (first.tail) {
      if (input.params !== undefined) {
        throw new Error(
          '"params" bind to a single statement, but the SQL holds several; run them one by one',
        );
      }
      const before = totalChanges(db);
      db.exec(input.sql);
      return { changes: totalChanges(db) - before, lastInsertRowid: lastInsertRowid(db) };
    }
    first.statement.setReadBigInts(true);
    const result = input.params === undefined
      ? first.statement.run()
      : Array.isArray(input.params)
      ? first.statement.run(...input.params)
      : first.statement.run(input.params);
    return { changes: Number(result.changes), lastInsertRowid: Number(result.lastInsertRowid) };
  });
}

/**
 * Lists the named databases that exist, for finding what `query` and `execute` can use.
 *
 * @returns Database names, sorted.
 */
export function databases(): string[] {
  return databaseNames();
}

/** A parameter as handed to SQLite, booleans already turned into 1/0. */
type BoundValue = number | string | null;

interface ParsedArgs {
  database: string;
  sql: string;
  params: BoundValue[] | Record<string, BoundValue> | undefined;
}

/** Checks the arguments of `query`/`execute`; booleans in params become 1/0. */
function parseArgs(args: unknown, tool: string): ParsedArgs {
  const where = `Invalid arguments for sqlite.${tool}`;
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    throw new TypeError(`${where}: expected an object {database, sql, params?}`);
  }
  for (const name of Object.keys(args)) {
    if (!["database", "sql", "params"].includes(name)) {
      throw new TypeError(
        `${where}: unknown property "${name}" (expected "database", "sql", "params")`,
      );
    }
  }
  const { database, sql, params } = args as Record<string, unknown>;
  if (typeof database !== "string" || !NAME_PATTERN.test(database)) {
    throw new TypeError(
      `${where}: database name ${JSON.stringify(database ?? null)} is not allowed; use 1-64 ` +
        `letters, digits, "_" or "-" (no paths)`,
    );
  }
  if (typeof sql !== "string") throw new TypeError(`${where}: "sql" must be a string`);
  if (params === undefined) return { database, sql, params: undefined };
  if (Array.isArray(params)) {
    return {
      database,
      sql,
      params: params.map((v, i) => bindable(v, { path: `params[${i}]`, where })),
    };
  }
  if (typeof params !== "object" || params === null) {
    throw new TypeError(`${where}: "params" must be an array or an object of named values`);
  }
  const named: Record<string, BoundValue> = {};
  for (const [name, value] of Object.entries(params)) {
    named[name] = bindable(value, { path: `params.${name}`, where });
  }
  return { database, sql, params: named };
}

function bindable(value: unknown, at: { path: string; where: string }): BoundValue {
  if (value === null || typeof value === "string") return value;
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value === "boolean") return value ? 1 : 0;
  throw new TypeError(
    `${at.where}: "${at.path}" must be a string, finite number, boolean or null, got ${
      Array.isArray(value) ? "an array" : typeof value
    } (store JSON with JSON.stringify)`,
  );
}

function dataDir(): string {
  const dir = Deno.env.get("GATEWAY_DATA_DIR");
  if (dir === undefined || dir === "") {
    throw new Error(
      "Cannot open sqlite databases: GATEWAY_DATA_DIR is not set; the gateway sets it for " +
        "tool hosts (set it yourself when importing tools/sqlite.ts directly)",
    );
  }
  return resolve(dir, "sqlite");
}

/** The file of a database whose name already passed {@linkcode NAME_PATTERN}. */
function databaseFile(name: string): string {
  return join(dataDir(), `${name}.db`);
}

function databaseNames(): string[] {
  const dir = dataDir();
  const names: string[] = [];
  try {
    for (const entry of Deno.readDirSync(dir)) {
      const name = entry.name.endsWith(".db") ? entry.name.slice(0, -3) : "";
      if (entry.isFile && NAME_PATTERN.test(name)) names.push(name);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return names.sort();
}

function exists(file: string): boolean {
  try {
    Deno.statSync(file);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/**
 * Opens a database, runs `body`, closes it. Opening per call costs about 1 ms; caching
 * handles would add module state for no measurable gain. `ATTACH` of another file (also
 * `VACUUM INTO`) is refused, so SQL cannot reach files outside the named database.
 */
function withDatabase<T>(
  context: { file: string; database: string; tool: string },
  body: (db: DatabaseSync) => T,
): T {
  const { file } = context;
  const failure = context.tool === "query" ? "query" : "execute SQL on";
  const refusal: { reason: string | null } = { reason: null };
  let db: DatabaseSync;
  try {
    Deno.mkdirSync(resolve(file, ".."), { recursive: true });
    db = new DatabaseSync(file);
  } catch (error) {
    throw new Error(`Cannot open database "${context.database}" (${file}): ${messageOf(error)}`, {
      cause: error,
    });
  }
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA foreign_keys = ON");
    confine(db, refusal);
    return body(db);
  } catch (error) {
    let detail = refusal.reason ?? messageOf(error);
    if (/readonly database/.test(detail) && context.tool === "query") {
      detail += " (sqlite.query only reads; use sqlite.execute to change data)";
    }
    detail += whatExists(db, detail);
    throw new Error(`Cannot ${failure} database "${context.database}": ${detail}`, {
      cause: error,
    });
  } finally {
    db.close();
  }
}

/**
 * What the database holds, for a statement that named something it lacks: the tables for
 * "no such table", the columns of each table for "no such column". Empty for other failures,
 * and when the database cannot be read (the failure's own message still stands).
 */
function whatExists(db: DatabaseSync, detail: string): string {
  if (!/no such (table|column)/.test(detail)) return "";
  try {
    const tables = db.prepare(
      "SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY name",
    ).all().map((row) => String(row.name));
    if (tables.length === 0) {
      return " (the database has no tables yet; create one with sqlite.execute)";
    }
    if (/no such table/.test(detail)) return ` (tables: ${quoteList(tables)})`;
    const columns = tables.slice(0, 10).map((table) => {
      const names = db.prepare(`SELECT name FROM pragma_table_info(?)`).all(table)
        .map((row) => String(row.name));
      return `${table}(${names.join(", ")})`;
    });
    return ` (columns: ${columns.join("; ")}${tables.length > 10 ? "; …" : ""})`;
  } catch {
    return "";
  }
}

/** SQLite C constants for the authorizer (sqlite3.h); stable across versions. */
const SQLITE_OK = 0;
const SQLITE_DENY = 1;
const SQLITE_ATTACH = 24;

/** Methods of `DatabaseSync` that Deno 2.9.6 has but its bundled `node:sqlite` types lack. */
interface DatabaseHardening {
  enableDefensive(active: boolean): void;
  setAuthorizer(callback: (action: number, target: string | null) => number): void;
}

/**
 * Turns on defensive mode and refuses `ATTACH` of any file, recording why in `refusal`. Fails
 * closed: without an authorizer the SQL could reach arbitrary files, so nothing runs.
 */
function confine(db: DatabaseSync, refusal: { reason: string | null }): void {
  const hardening = db as unknown as Partial<DatabaseHardening>;
  if (
    typeof hardening.setAuthorizer !== "function" || typeof hardening.enableDefensive !== "function"
  ) {
    throw new Error(
      "this Deno's node:sqlite lacks setAuthorizer/enableDefensive, which confine SQL to its " +
        "database: upgrade Deno (2.9.6 has them)",
    );
  }
  hardening.enableDefensive.call(db, true);
  hardening.setAuthorizer.call(db, (action, target) => {
    // VACUUM attaches a temporary database named ""; anything else would open another file.
    if (action !== SQLITE_ATTACH || target === "" || target === ":memory:") return SQLITE_OK;
    refusal.reason = `ATTACH of ${
      target === null ? "a computed file name" : `"${target}"`
    } is refused: each call works on its one named database`;
    return SQLITE_DENY;
  });
}

/** A prepared first statement and whether more statements follow it. */
interface PreparedStatement {
  statement: StatementSync;
  tail: boolean;
}

function prepareOne(db: DatabaseSync, sql: string): PreparedStatement {
  // Never prepare text without a statement: in Deno 2.9.6 reading `sourceSQL` of such a
  // statement crashes the process (segfault).
  if (isBlank(sql)) throw new Error("the SQL holds no statement");
  const statement = db.prepare(sql);
  const source = statement.sourceSQL;
  if (!sql.startsWith(source)) {
    throw new Error("cannot tell where the first statement ends; run one statement at a time");
  }
  return { statement, tail: !isBlank(sql.slice(source.length)) };
}

/** True when `sql` holds only whitespace, comments and semicolons. */
function isBlank(sql: string): boolean {
  return sql.replace(/--[^\n]*|\/\*[\s\S]*?(?:\*\/|$)|[\s;]+/g, "") === "";
}

function totalChanges(db: DatabaseSync): number {
  return Number(db.prepare("SELECT total_changes() AS n").get()?.["n"] ?? 0);
}

function lastInsertRowid(db: DatabaseSync): number {
  return Number(db.prepare("SELECT last_insert_rowid() AS id").get()?.["id"] ?? 0);
}

function toJsonRow(row: Record<string, unknown>): SqlRow {
  const out: SqlRow = {};
  for (const [column, value] of Object.entries(row)) {
    if (typeof value === "bigint") {
      out[column] = Number.isSafeInteger(Number(value)) && BigInt(Number(value)) === value
        ? Number(value)
        : value.toString();
    } else if (value instanceof Uint8Array) {
      out[column] = Buffer.from(value).toString("base64");
    } else {
      out[column] = value as string | number | null;
    }
  }
  return out;
}

function quoteList(names: string[]): string {
  return names.length === 0 ? "none yet" : names.map((n) => `"${n}"`).join(", ");
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
