const database = "corpus_a";
await tools.sqlite.execute({ database, sql: "CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, name TEXT)" });
await tools.sqlite.execute({ database, sql: "INSERT INTO t (name) VALUES (?)", params: ["ada"] });
const rows = await tools.sqlite.query({ database, sql: "SELECT count(*) AS n FROM t" });
rows[0]?.n
