import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { GATEWAY_MIGRATIONS, openGatewayDatabase } from "./gateway_database.ts";

const MIGRATION_CRASHER = new URL("./testdata/migration_crasher.ts", import.meta.url).pathname;

function pragma(path: string, name: string): unknown {
  const db = new DatabaseSync(path);
  try {
    const row = db.prepare(`PRAGMA ${name}`).get();
    return row === undefined ? undefined : Object.values(row)[0];
  } finally {
    db.close();
  }
}

Deno.test("openGatewayDatabase() creates the file, its directory and the schema when missing", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "nested", "data", "gateway.db");
    const db = openGatewayDatabase(path);
    try {
      assert.deepEqual(db.schemaVersion, GATEWAY_MIGRATIONS.length);
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .all().map((row) => row.name);
      assert.deepEqual(tables, [
        "gateway_instances",
        "held_approvals",
        "live_runs",
        "runs",
        "tool_calls",
        "workflow_events",
        "workflow_sessions",
      ]);
      assert.deepEqual(db.integrityCheck(), ["ok"]);
    } finally {
      db.close();
    }
    assert.deepEqual((await Deno.stat(path)).mode! & 0o777, 0o600);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("openGatewayDatabase() sets WAL, incremental auto-vacuum and the connection pragmas", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "gateway.db");
    const db = openGatewayDatabase(path, { journalSizeLimit: 1234, busyTimeoutMs: 4321 });
    try {
      const get = (name: string) => Object.values(db.prepare(`PRAGMA ${name}`).get() ?? {})[0];
      assert.deepEqual(get("journal_mode"), "wal");
      assert.deepEqual(get("auto_vacuum"), 2);
      assert.deepEqual(get("foreign_keys"), 1);
      assert.deepEqual(get("secure_delete"), 1);
      assert.deepEqual(get("busy_timeout"), 4321);
      assert.deepEqual(get("journal_size_limit"), 1234);
    } finally {
      db.close();
    }
    const reopened = openGatewayDatabase(path);
    assert.deepEqual(reopened.prepare("PRAGMA busy_timeout").get()?.timeout, 5000);
    reopened.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("openGatewayDatabase() is idempotent: reopening keeps data and the schema version", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "gateway.db");
    const first = openGatewayDatabase(path);
    first.transaction(() => {
      first.prepare(
        `INSERT INTO workflow_sessions (name, file, file_hash, file_text, vars, status, step, pass,
           created_at, updated_at) VALUES ('s', 'f', 'h', 't', '{}', 'running', 0, 1, 1, 1)`,
      ).run();
    });
    first.close();
    for (let i = 0; i < 3; i++) {
      const again = openGatewayDatabase(path);
      assert.deepEqual(again.schemaVersion, GATEWAY_MIGRATIONS.length);
      assert.deepEqual(again.prepare("SELECT count(*) AS n FROM workflow_sessions").get()?.n, 1);
      again.close();
    }
    assert.deepEqual(pragma(path, "user_version"), GATEWAY_MIGRATIONS.length);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("openGatewayDatabase() turns on auto-vacuum on an empty file an interrupted open left in WAL mode", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "gateway.db");
    const raw = new DatabaseSync(path);
    raw.exec("PRAGMA journal_mode = WAL");
    raw.close();
    const db = openGatewayDatabase(path);
    assert.deepEqual(db.prepare("PRAGMA auto_vacuum").get()?.auto_vacuum, 2);
    db.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("openGatewayDatabase() refuses a file whose schema is newer than it knows", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "gateway.db");
    const raw = new DatabaseSync(path);
    raw.exec(`PRAGMA user_version = ${GATEWAY_MIGRATIONS.length + 5}`);
    raw.close();
    assert.throws(() => openGatewayDatabase(path), {
      message: new RegExp(
        `schema version ${GATEWAY_MIGRATIONS.length + 5} is newer than this gateway knows`,
      ),
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("openGatewayDatabase() finishes a migration that a kill -9 interrupted", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "gateway.db");
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-all", "--no-prompt", MIGRATION_CRASHER, path],
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    let status: Deno.CommandStatus;
    let stdout: string;
    try {
      const output = await child.output();
      status = output;
      stdout = new TextDecoder().decode(output.stdout);
    } finally {
      try {
        child.kill("SIGKILL");
      } catch {
        // already gone
      }
    }
    assert.deepEqual(stdout.trim(), "migrating");
    assert.deepEqual(status.signal, "SIGKILL");
    const db = openGatewayDatabase(path);
    try {
      assert.deepEqual(db.schemaVersion, GATEWAY_MIGRATIONS.length);
      assert.deepEqual(
        db.prepare("PRAGMA quick_check").get()?.quick_check,
        "ok",
      );
      assert.deepEqual(db.integrityCheck(), ["ok"]);
      // The crashed transaction left nothing behind: its extra table never committed.
      assert.deepEqual(
        db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'filler'").get()?.n,
        0,
      );
      assert.deepEqual(db.prepare("SELECT count(*) AS n FROM runs").get()?.n, 0);
      assert.deepEqual(db.prepare("PRAGMA auto_vacuum").get()?.auto_vacuum, 2);
    } finally {
      db.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("GatewayDatabase.transaction() commits on return and rolls back on throw", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const db = openGatewayDatabase(join(dir, "gateway.db"));
    try {
      db.exec("CREATE TABLE t (x INTEGER)");
      assert.deepEqual(
        db.transaction(() => db.prepare("INSERT INTO t VALUES (1)").run().changes),
        1,
      );
      assert.throws(
        () =>
          db.transaction(() => {
            db.prepare("INSERT INTO t VALUES (2)").run();
            throw new Error("stop");
          }),
        { message: "stop" },
      );
      db.transaction(() => {
        db.prepare("INSERT INTO t VALUES (3)").run();
        assert.throws(() =>
          db.transaction(() => {
            db.prepare("INSERT INTO t VALUES (4)").run();
            throw new Error("inner");
          })
        );
      });
      const rows = db.prepare("SELECT x FROM t ORDER BY x").all().map((r) => r.x);
      assert.deepEqual(rows, [1, 3]);
    } finally {
      db.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("GatewayDatabase.transaction() refuses an async callback and rolls it back", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const db = openGatewayDatabase(join(dir, "gateway.db"));
    try {
      db.exec("CREATE TABLE t (x INTEGER)");
      assert.throws(
        () =>
          db.transaction(() => {
            db.prepare("INSERT INTO t VALUES (1)").run();
            return Promise.resolve(1);
          }),
        { name: "TypeError", message: /must be synchronous/ },
      );
      assert.deepEqual(db.prepare("SELECT count(*) AS n FROM t").get()?.n, 0);
      assert.ok(db.transaction(() => true));
    } finally {
      db.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("GatewayDatabase.transaction() waits for another connection's write lock instead of failing", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "gateway.db");
    const a = openGatewayDatabase(path);
    const b = openGatewayDatabase(path, { busyTimeoutMs: 300 });
    try {
      a.exec("CREATE TABLE t (x INTEGER)");
      a.exec("BEGIN IMMEDIATE");
      // `b` blocks in BEGIN IMMEDIATE until its busy timeout, then fails as busy (not at once
      // with another error): it waited rather than failing.
      assert.throws(
        () => b.transaction(() => b.prepare("INSERT INTO t VALUES (1)").run()),
        /database is locked|SQLITE_BUSY/i,
      );
      a.exec("COMMIT");
      b.transaction(() => b.prepare("INSERT INTO t VALUES (1)").run());
      assert.deepEqual(a.prepare("SELECT count(*) AS n FROM t").get()?.n, 1);
    } finally {
      a.close();
      b.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
