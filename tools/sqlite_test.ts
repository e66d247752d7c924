import assert from "node:assert/strict";
import { join } from "node:path";
import * as sqlite from "./sqlite.ts";
import { isolatedTests } from "./_isolated_tests.ts";

const test = isolatedTests(import.meta, "sqlite");

/** Runs `body` with GATEWAY_DATA_DIR set to a fresh temp dir; restores the variable after. */
async function withDataDir(body: (dir: string) => void | Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "gateway-sqlite-test-" });
  const previous = Deno.env.get("GATEWAY_DATA_DIR");
  Deno.env.set("GATEWAY_DATA_DIR", dir);
  try {
    await body(dir);
  } finally {
    if (previous === undefined) Deno.env.delete("GATEWAY_DATA_DIR");
    else Deno.env.set("GATEWAY_DATA_DIR", previous);
    await Deno.remove(dir, { recursive: true });
  }
}

function listTree(dir: string): string[] {
  const out: string[] = [];
  for (const entry of Deno.readDirSync(dir)) {
    out.push(entry.name);
    if (entry.isDirectory) {
      out.push(...listTree(join(dir, entry.name)).map((n) => `${entry.name}/${n}`));
    }
  }
  return out.sort();
}

test("sqlite module exports only tools: functions of at most one parameter", () => {
  const exported = Object.entries(sqlite);
  assert.deepEqual(exported.map(([name]) => name).sort(), ["databases", "execute", "query"]);
  for (const [name, value] of exported) {
    assert.equal(typeof value, "function", name);
    assert.ok((value as (...a: unknown[]) => unknown).length <= 1, name);
  }
});

test("execute() creates sqlite/<name>.db in WAL mode and runs a multi-statement script", async () => {
  await withDataDir((dir) => {
    const result = sqlite.execute({
      database: "shop",
      sql: `CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, price REAL);
            INSERT INTO items (name, price) VALUES ('pen', 1.5), ('ink', 3); -- two rows
            INSERT INTO items (name, price) VALUES ('pad', 2);`,
    });
    assert.deepEqual(result, { changes: 3, lastInsertRowid: 3 });
    assert.ok(listTree(dir).includes("sqlite/shop.db"));
    assert.deepEqual(sqlite.query({ database: "shop", sql: "PRAGMA journal_mode" }), [
      { journal_mode: "wal" },
    ]);
    assert.deepEqual(
      sqlite.query({ database: "shop", sql: "SELECT name, price FROM items ORDER BY id" }),
      [{ name: "pen", price: 1.5 }, { name: "ink", price: 3 }, { name: "pad", price: 2 }],
    );
  });
});

test("execute() and query() bind positional and named params, booleans as 1/0", async () => {
  await withDataDir(() => {
    sqlite.execute({
      database: "p",
      sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, s TEXT, b INT)",
    });
    assert.deepEqual(
      sqlite.execute({
        database: "p",
        sql: "INSERT INTO t (s, b) VALUES (?, ?)",
        params: ["a'; DROP TABLE t; --", true],
      }),
      { changes: 1, lastInsertRowid: 1 },
    );
    assert.deepEqual(
      sqlite.execute({
        database: "p",
        sql: "INSERT INTO t (s, b) VALUES (:s, $b)",
        params: { s: "two", $b: false },
      }),
      { changes: 1, lastInsertRowid: 2 },
    );
    assert.deepEqual(
      sqlite.execute({ database: "p", sql: "UPDATE t SET b = 7 WHERE id >= ?", params: [1] }),
      { changes: 2, lastInsertRowid: 0 },
    );
    assert.deepEqual(
      sqlite.query({ database: "p", sql: "SELECT s FROM t WHERE id = @id", params: { id: 1 } }),
      [
        { s: "a'; DROP TABLE t; --" },
      ],
    );
    assert.deepEqual(
      sqlite.query({ database: "p", sql: "SELECT count(*) AS n FROM t WHERE b = ?", params: [7] }),
      [
        { n: 2 },
      ],
    );
  });
});

test("query() returns big integers as strings and blobs as base64", async () => {
  await withDataDir(() => {
    sqlite.execute({ database: "v", sql: "CREATE TABLE x (a)" });
    const rows = sqlite.query({
      database: "v",
      sql: "SELECT 9007199254740993 AS big, 9007199254740991 AS safe, x'01ff' AS blob, NULL AS n",
    });
    assert.deepEqual(rows, [{
      big: "9007199254740993",
      safe: 9007199254740991,
      blob: "Af8=",
      n: null,
    }]);
  });
});

test("databases() lists existing database names sorted, ignoring other files", async () => {
  await withDataDir(async (dir) => {
    assert.deepEqual(sqlite.databases(), []);
    sqlite.execute({ database: "zeta", sql: "CREATE TABLE a (x)" });
    sqlite.execute({ database: "alpha-1", sql: "CREATE TABLE a (x)" });
    await Deno.writeTextFile(join(dir, "sqlite", "notes.txt"), "x");
    await Deno.writeTextFile(join(dir, "sqlite", "bad name.db"), "x");
    assert.deepEqual(sqlite.databases(), ["alpha-1", "zeta"]);
  });
});

test("query() refuses a database that does not exist, without creating it", async () => {
  await withDataDir((dir) => {
    sqlite.execute({ database: "real", sql: "CREATE TABLE a (x)" });
    assert.throws(
      () => sqlite.query({ database: "ghost", sql: "SELECT 1" }),
      /Cannot query database "ghost": it does not exist \(databases: "real"\); create it with sqlite\.execute/,
    );
    assert.ok(!listTree(dir).includes("sqlite/ghost.db"));
  });
});

test("query() refuses statements that write and points to execute()", async () => {
  await withDataDir(() => {
    sqlite.execute({ database: "ro", sql: "CREATE TABLE a (x)" });
    assert.throws(
      () => sqlite.query({ database: "ro", sql: "INSERT INTO a VALUES (1)" }),
      /Cannot query database "ro": attempt to write a readonly database \(sqlite\.query only reads; use sqlite\.execute/,
    );
    assert.deepEqual(sqlite.query({ database: "ro", sql: "SELECT count(*) AS n FROM a" }), [{
      n: 0,
    }]);
  });
});

test("query() refuses several statements and execute() refuses params with several", async () => {
  await withDataDir(() => {
    sqlite.execute({ database: "m", sql: "CREATE TABLE a (x)" });
    assert.throws(
      () => sqlite.query({ database: "m", sql: "SELECT 1; DELETE FROM a" }),
      /more than one statement; sqlite\.query runs one/,
    );
    assert.throws(
      () =>
        sqlite.execute({
          database: "m",
          sql: "INSERT INTO a VALUES (?); DELETE FROM a",
          params: [1],
        }),
      /"params" bind to a single statement, but the SQL holds several/,
    );
    assert.deepEqual(
      sqlite.query({ database: "m", sql: "SELECT count(*) AS n FROM a; -- done\n" }),
      [{ n: 0 }],
    );
  });
});

test("execute() and query() refuse SQL with no statement instead of crashing", async () => {
  await withDataDir(() => {
    sqlite.execute({ database: "e", sql: "CREATE TABLE a (x)" });
    for (const sql of ["", "  ", ";", "-- only a comment", "/* c */ ;"]) {
      assert.throws(
        () => sqlite.execute({ database: "e", sql }),
        /database "e": the SQL holds no statement/,
      );
      assert.throws(
        () => sqlite.query({ database: "e", sql }),
        /database "e": the SQL holds no statement/,
      );
    }
  });
});

test("sqlite tools refuse database names that are paths, with a clear error", async () => {
  await withDataDir((dir) => {
    const names = ["../x", "/etc/passwd", "a/b", "..", "", "a.b", "x\0y", "n".repeat(65), "é"];
    for (const database of names) {
      assert.throws(
        () => sqlite.execute({ database, sql: "CREATE TABLE a (x)" }),
        /Invalid arguments for sqlite\.execute: database name .* is not allowed; use 1-64 letters, digits, "_" or "-" \(no paths\)/,
      );
      assert.throws(() => sqlite.query({ database, sql: "SELECT 1" }), /is not allowed/);
    }
    assert.deepEqual(listTree(dir), []);
  });
});

test("sqlite tools refuse ATTACH and VACUUM INTO of other files, but allow VACUUM", async () => {
  await withDataDir((dir) => {
    const outside = join(dir, "outside.db");
    sqlite.execute({ database: "a", sql: "CREATE TABLE t (x)" });
    assert.throws(
      () => sqlite.execute({ database: "a", sql: `ATTACH DATABASE '${outside}' AS o` }),
      /Cannot execute SQL on database "a": ATTACH of ".*outside\.db" is refused/,
    );
    assert.throws(
      () => sqlite.execute({ database: "a", sql: "ATTACH DATABASE ? AS o", params: [outside] }),
      /ATTACH of a computed file name is refused/,
    );
    assert.throws(
      () => sqlite.execute({ database: "a", sql: `VACUUM INTO '${outside}'` }),
      /is refused/,
    );
    assert.throws(
      () => sqlite.query({ database: "a", sql: `ATTACH '${outside}' AS o` }),
      /is refused/,
    );
    assert.deepEqual(sqlite.execute({ database: "a", sql: "VACUUM" }), {
      changes: 0,
      lastInsertRowid: 0,
    });
    assert.ok(!listTree(dir).includes("outside.db"));
  });
});

test("sqlite tools refuse params that SQLite cannot bind, naming the param", async () => {
  await withDataDir(() => {
    assert.throws(
      () =>
        sqlite.execute({
          database: "b",
          sql: "SELECT ?",
          params: [{ a: 1 }] as unknown as sqlite.SqlParams,
        }),
      /"params\[0\]" must be a string, finite number, boolean or null, got object/,
    );
    assert.throws(
      () =>
        sqlite.query({
          database: "b",
          sql: "SELECT :a",
          params: { a: [1] } as unknown as sqlite.SqlParams,
        }),
      /"params\.a" must be .* got an array/,
    );
    assert.throws(
      () =>
        sqlite.execute(
          { database: "b", sql: "SELECT 1", extra: 1 } as unknown as sqlite.ExecuteArgs,
        ),
      /unknown property "extra"/,
    );
    assert.throws(
      () => sqlite.execute({ database: "b", sql: 5 } as unknown as sqlite.ExecuteArgs),
      /"sql" must be a string/,
    );
  });
});

test("sqlite tools report SQL errors with the database name", async () => {
  await withDataDir(() => {
    sqlite.execute({ database: "err", sql: "CREATE TABLE a (x)" });
    assert.throws(
      () => sqlite.query({ database: "err", sql: "SELECT * FROM nope" }),
      /Cannot query database "err": no such table: nope/,
    );
    assert.throws(
      () => sqlite.execute({ database: "err", sql: "INSER INTO a VALUES (1)" }),
      /Cannot execute SQL on database "err": .*syntax error/,
    );
  });
});

test("sqlite tools fail with a clear error when GATEWAY_DATA_DIR is not set", async () => {
  await withDataDir(() => {
    Deno.env.delete("GATEWAY_DATA_DIR");
    assert.throws(
      () => sqlite.databases(),
      /Cannot open sqlite databases: GATEWAY_DATA_DIR is not set/,
    );
    assert.throws(
      () => sqlite.execute({ database: "x", sql: "SELECT 1" }),
      /GATEWAY_DATA_DIR is not set/,
    );
  });
});

test("query() of a missing table lists the tables; of a missing column, each table's columns", async () => {
  await withDataDir(() => {
    sqlite.execute({
      database: "zoo",
      sql: "CREATE TABLE pets (name TEXT, age INTEGER); CREATE TABLE keepers (id INTEGER)",
    });
    assert.throws(
      () => sqlite.query({ database: "zoo", sql: "SELECT * FROM users" }),
      /no such table: users \(tables: "keepers", "pets"\)/,
    );
    assert.throws(
      () => sqlite.query({ database: "zoo", sql: "SELECT years FROM pets" }),
      /no such column: years \(columns: keepers\(id\); pets\(name, age\)\)/,
    );
    assert.throws(
      () => sqlite.execute({ database: "zoo", sql: "INSERT INTO pet VALUES ('x', 1)" }),
      /no such table: pet \(tables: "keepers", "pets"\)/,
    );
  });
});
