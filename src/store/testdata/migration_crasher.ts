/**
 * Test fixture: starts the first schema migration on a fresh file at `Deno.args[0]` exactly as
 * `openGatewayDatabase` does, prints `migrating`, then SIGKILLs itself before `COMMIT`.
 * @module
 */

import { DatabaseSync } from "node:sqlite";
import { GATEWAY_MIGRATIONS } from "../gateway_database.ts";

const path = Deno.args[0];
if (path === undefined) throw new TypeError("Cannot start migration crasher: no database path");
const db = new DatabaseSync(path);
db.exec("PRAGMA auto_vacuum = INCREMENTAL");
db.exec("PRAGMA journal_mode = WAL");
db.exec("BEGIN IMMEDIATE");
db.exec(GATEWAY_MIGRATIONS[0] ?? "");
// Enough uncommitted pages to spill into the WAL before the kill.
db.exec("CREATE TABLE filler (x)");
const insert = db.prepare("INSERT INTO filler VALUES (?)");
for (let i = 0; i < 2000; i++) insert.run("y".repeat(1000));
db.exec("PRAGMA user_version = 1");
console.log("migrating");
Deno.kill(Deno.pid, "SIGKILL");
