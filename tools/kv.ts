/**
 * Bundled tool module `kv`: a persistent key-value store of JSON values, kept in SQLite at
 * `$GATEWAY_DATA_DIR/kv.db`, so scripts can remember things between runs. When the gateway keeps its
 * state in PostgreSQL (config `store.postgres`, several instances on one database) it hands the URL
 * to this module as setting `postgres`, and the entries live in that database's `gateway_kv` table
 * instead, so scripts on every instance see the same data.
 * @module
 */

import { DatabaseSync } from "node:sqlite";
import { dirname, join, resolve } from "node:path";

/** Any value JSON can carry; what `kv.set` stores and `kv.get` gives back. */
export type JsonValue = string | number | boolean | null | JsonValue[] | {
  [key: string]: JsonValue;
};

/** Arguments of `kv.get`. */
export interface GetArgs {
  /** The key to read (1 to 1024 characters). */
  key: string;
}

/** Arguments of `kv.set`. */
export interface SetArgs {
  /** The key to write (1 to 1024 characters). */
  key: string;
  /** Any JSON value; replaces the key's previous value. */
  value: JsonValue;
}

/** What `kv.set` did. */
export interface SetResult {
  /** The key written. */
  key: string;
  /** True when the key did not exist before; false when its value was replaced. */
  created: boolean;
}

/** Arguments of `kv.delete`. */
export interface DeleteArgs {
  /** The key to remove. */
  key: string;
}

/** What `kv.delete` did. */
export interface DeleteResult {
  /** The key asked for. */
  key: string;
  /** True when the key existed and was removed; false when there was nothing to remove. */
  deleted: boolean;
}

/** Arguments of `kv.list`; all optional. */
export interface ListArgs {
  /** Only keys starting with this text (case-sensitive). Default: every key. */
  prefix?: string;
  /** Most entries to return, 1 to 10000. Default: 1000. */
  limit?: number;
  /** Only keys sorting after this one: pass the last key of a page to get the next page. */
  after?: string;
}

/** One stored entry. */
export interface KvEntry {
  /** The entry's key. */
  key: string;
  /** The entry's JSON value. */
  value: JsonValue;
}

const MAX_KEY_LENGTH = 1024;
const DEFAULT_LIST_LIMIT = 1000;
const MAX_LIST_LIMIT = 10_000;
const SCHEMA_VERSION = 1;

/**
 * Reads the value stored under a key.
 *
 * @param args The key to read.
 * @returns The stored JSON value, or null when the key does not exist.
 */
export async function get(args: GetArgs): Promise<JsonValue> {
  const input = argsObject(args, { tool: "get", allowed: ["key"] });
  const key = keyArg(input["key"], "get");
  const shared = await sharedStore();
  if (shared !== null) {
    const [row] = await shared.query("SELECT value FROM gateway_kv WHERE key = $1", [key]);
    return row === undefined ? null : JSON.parse(String(row["value"])) as JsonValue;
  }
  return withStore((db) => {
    const row = db.prepare("SELECT value FROM kv WHERE key = ?").get(key);
    return row === undefined ? null : JSON.parse(String(row["value"])) as JsonValue;
  });
}

/**
 * Stores a JSON value under a key, replacing any previous value.
 *
 * @param args The key and the value to store.
 * @returns The key and whether it was newly created.
 */
export async function set(args: SetArgs): Promise<SetResult> {
  const input = argsObject(args, { tool: "set", allowed: ["key", "value"] });
  const key = keyArg(input["key"], "set");
  const value = input["value"];
  const json = value === undefined ? undefined : JSON.stringify(value);
  if (json === undefined) {
    throw new TypeError(
      `Cannot set key "${key}" in kv: "value" is missing or not JSON; pass any JSON value ` +
        `(use kv.delete to remove a key)`,
    );
  }
  const shared = await sharedStore();
  if (shared !== null) {
    // xmax = 0 only on a freshly inserted row: tells a create from a replace in one statement.
    const [row] = await shared.query(
      `INSERT INTO gateway_kv (key, value, updated_at) VALUES ($1, $2, $3)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
       RETURNING (xmax = 0) AS created`,
      [key, json, new Date().toISOString()],
    );
    return { key, created: row?.["created"] === true };
  }
  return withStore((db) => {
    db.exec("BEGIN IMMEDIATE");
    try {
      const existed = db.prepare("SELECT 1 FROM kv WHERE key = ?").get(key) !== undefined;
      db.prepare(
        `INSERT INTO kv (key, value, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
      ).run(key, json, new Date().toISOString());
      db.exec("COMMIT");
      return { key, created: !existed };
    } catch (error) {
      if (db.isTransaction) db.exec("ROLLBACK");
      throw error;
    }
  });
}

/**
 * Removes a key. Exported as `delete` (scripts call `tools.kv.delete_` or `tools.kv["delete"]`).
 *
 * @param args The key to remove.
 * @returns The key and whether anything was removed.
 */
async function deleteKey(args: DeleteArgs): Promise<DeleteResult> {
  const input = argsObject(args, { tool: "delete", allowed: ["key"] });
  const key = keyArg(input["key"], "delete");
  const shared = await sharedStore();
  if (shared !== null) {
    const rows = await shared.query("DELETE FROM gateway_kv WHERE key = $1 RETURNING key", [key]);
    return { key, deleted: rows.length > 0 };
  }
  return withStore((db) => {
    const { changes } = db.prepare("DELETE FROM kv WHERE key = ?").run(key);
    return { key, deleted: Number(changes) > 0 };
  });
}
export { deleteKey as delete };

/**
 * Lists entries sorted by key, optionally only those under a prefix, a page at a time.
 *
 * @param args Optional prefix, page size and the key to continue after.
 * @returns Up to `limit` entries with their values, sorted by key.
 */
export async function list(args?: ListArgs): Promise<KvEntry[]> {
  const input = argsObject(args ?? {}, { tool: "list", allowed: ["prefix", "limit", "after"] });
  const prefix = optionalString(input["prefix"], "prefix") ?? "";
  const after = optionalString(input["after"], "after");
  const limit = input["limit"] ?? DEFAULT_LIST_LIMIT;
  if (
    typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT
  ) {
    throw new RangeError(
      `Cannot list kv: "limit" must be an integer from 1 to ${MAX_LIST_LIMIT}, got ${
        JSON.stringify(limit)
      }`,
    );
  }
  const shared = await sharedStore();
  if (shared !== null) {
    const rows = await shared.query(
      `SELECT key, value FROM gateway_kv
       WHERE key >= $1 AND left(key, length($1)) = $1 AND ($2::text IS NULL OR key > $2)
       ORDER BY key COLLATE "C" LIMIT $3`,
      [prefix, after ?? null, limit],
    );
    return rows.map((row) => ({
      key: String(row["key"]),
      value: JSON.parse(String(row["value"])) as JsonValue,
    }));
  }
  return withStore((db) => {
    // `key >= prefix` lets the primary-key index find the start; `substr` checks the prefix.
    const rows = db.prepare(
      `SELECT key, value FROM kv
       WHERE key >= ? AND substr(key, 1, length(?)) = ? AND (? IS NULL OR key > ?)
       ORDER BY key LIMIT ?`,
    ).all(prefix, prefix, prefix, after ?? null, after ?? null, limit);
    return rows.map((row) => ({
      key: String(row["key"]),
      value: JSON.parse(String(row["value"])) as JsonValue,
    }));
  });
}

/** Checks the argument is a plain object with only the properties the tool knows. */
function argsObject(
  args: unknown,
  options: { tool: string; allowed: readonly string[] },
): Record<string, unknown> {
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    throw new TypeError(
      `Invalid arguments for kv.${options.tool}: expected an object, got ${describe(args)}`,
    );
  }
  for (const name of Object.keys(args)) {
    if (!options.allowed.includes(name)) {
      throw new TypeError(
        `Invalid arguments for kv.${options.tool}: unknown property "${name}" (expected ${
          options.allowed.map((a) => `"${a}"`).join(", ")
        })`,
      );
    }
  }
  return args as Record<string, unknown>;
}

function keyArg(value: unknown, tool: string): string {
  if (typeof value !== "string" || value.length === 0 || value.length > MAX_KEY_LENGTH) {
    throw new TypeError(
      `Invalid arguments for kv.${tool}: "key" must be a string of 1 to ${MAX_KEY_LENGTH} ` +
        `characters, got ${describe(value)}`,
    );
  }
  return value;
}

function optionalString(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string") {
    throw new TypeError(
      `Invalid arguments for kv.list: "${name}" must be a string, got ${describe(value)}`,
    );
  }
  return value;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") {
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  }
  return typeof value;
}

/**
 * Open stores by file. A tool host serves many calls, and opening a database (WAL, schema
 * check) costs about 0.5 ms, three times the gateway's own per-call cost; so a handle is kept
 * per file. The key is the file path read at call time, so a changed `GATEWAY_DATA_DIR`
 * opens a new handle rather than writing to the old directory.
 */
const openStores = new Map<string, DatabaseSync>();

/** Runs `body` against the store of the current data dir, opening it on first use. */
function withStore<T>(body: (db: DatabaseSync) => T): T {
  const file = join(dataDir(), "kv.db");
  let db = openStores.get(file);
  if (db === undefined || !db.isOpen) {
    try {
      Deno.mkdirSync(dirname(file), { recursive: true });
      db = new DatabaseSync(file);
    } catch (error) {
      throw new Error(`Cannot open the kv store "${file}": ${messageOf(error)}`, { cause: error });
    }
    try {
      prepareStore(db, file);
    } catch (error) {
      db.close();
      throw error;
    }
    openStores.set(file, db);
  }
  try {
    return body(db);
  } catch (error) {
    if (!isSqliteError(error)) throw error;
    throw new Error(`Cannot use the kv store "${file}": ${error.message}`, { cause: error });
  }
}

function prepareStore(db: DatabaseSync, file: string): void {
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    db.exec("PRAGMA journal_mode = WAL");
    const version = Number(db.prepare("PRAGMA user_version").get()?.["user_version"] ?? 0);
    if (version === SCHEMA_VERSION) return;
    if (version > SCHEMA_VERSION) {
      throw new Error(`schema version ${version} is newer than this module's ${SCHEMA_VERSION}`);
    }
    db.exec(`BEGIN IMMEDIATE;
      CREATE TABLE IF NOT EXISTS kv (
        key TEXT PRIMARY KEY NOT NULL,
        value TEXT NOT NULL,
        updated_at TEXT NOT NULL
      ) STRICT, WITHOUT ROWID;
      PRAGMA user_version = ${SCHEMA_VERSION};
      COMMIT;`);
  } catch (error) {
    if (db.isTransaction) db.exec("ROLLBACK");
    throw new Error(`Cannot open the kv store "${file}": ${messageOf(error)}`, { cause: error });
  }
}

/** The shared PostgreSQL table, when the gateway configured one; see the module doc. */
interface SharedStore {
  query(text: string, params: (string | number | null)[]): Promise<Record<string, unknown>[]>;
}

let shared: { url: string; store: Promise<SharedStore> } | null = null;

/** The PostgreSQL store named by setting `postgres`, or null to use `kv.db`. */
function sharedStore(): Promise<SharedStore | null> {
  const url = settingsUrl();
  if (url === null) return Promise.resolve(null);
  if (shared === null || shared.url !== url) {
    const store = openShared(url);
    shared = { url, store };
    // A failed open is retried on the next call rather than remembered.
    store.catch(() => {
      if (shared?.store === store) shared = null;
    });
  }
  return shared.store;
}

async function openShared(url: string): Promise<SharedStore> {
  // Tool modules run standalone (copied into any root, started with --no-config), so the driver
  // is named in full here; it loads only when PostgreSQL is configured.
  // deno-lint-ignore no-import-prefix
  const { default: postgres } = await import("npm:postgres@3.4.9");
  const sql = postgres(url, { max: 4, onnotice: () => {} });
  try {
    await sql.unsafe(`CREATE TABLE IF NOT EXISTS gateway_kv (
      key TEXT COLLATE "C" PRIMARY KEY NOT NULL,
      value TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`);
  } catch (error) {
    // Another instance creating the table at the same moment wins; anything else is real.
    if (!String((error as { code?: unknown }).code).match(/^(23505|42P07)$/)) {
      await sql.end({ timeout: 1 });
      throw new Error(`Cannot open the shared kv store in PostgreSQL: ${messageOf(error)}`, {
        cause: error,
      });
    }
  }
  return {
    query: async (text, params) => {
      try {
        return [...await sql.unsafe(text, params)];
      } catch (error) {
        throw new Error(`Cannot use the shared kv store in PostgreSQL: ${messageOf(error)}`, {
          cause: error,
        });
      }
    },
  };
}

function settingsUrl(): string | null {
  const text = Deno.env.get("GATEWAY_TOOL_SETTINGS");
  if (text === undefined || text === "") return null;
  let settings: unknown;
  try {
    settings = JSON.parse(text);
  } catch {
    return null;
  }
  const url = typeof settings === "object" && settings !== null
    ? (settings as Record<string, unknown>)["postgres"]
    : undefined;
  return typeof url === "string" && url !== "" ? url : null;
}

function dataDir(): string {
  const dir = Deno.env.get("GATEWAY_DATA_DIR");
  if (dir === undefined || dir === "") {
    throw new Error(
      "Cannot open the kv store: GATEWAY_DATA_DIR is not set; the gateway sets it for tool " +
        "hosts (set it yourself when importing tools/kv.ts directly)",
    );
  }
  return resolve(dir);
}

function isSqliteError(error: unknown): error is Error {
  return error instanceof Error &&
    String((error as { code?: unknown }).code).startsWith("ERR_SQLITE");
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
