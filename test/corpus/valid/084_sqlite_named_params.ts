const database = "corpus_b";
await tools.sqlite.execute({ database, sql: "CREATE TABLE IF NOT EXISTS kv (k TEXT, v INTEGER)" });
await tools.sqlite.execute({ database, sql: "INSERT INTO kv VALUES (:k, :v)", params: { k: "a", v: 1 } });
(await tools.sqlite.query({ database, sql: "SELECT v FROM kv WHERE k = :k", params: { k: "a" } })).map((r) => r.v)
