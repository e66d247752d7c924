const database = "corpus_pipe";
await tools.sqlite.execute({ database, sql: "CREATE TABLE IF NOT EXISTS n (v INTEGER)" });
for (const v of [1, 2, 3]) {
  await tools.sqlite.execute({ database, sql: "INSERT INTO n VALUES (?)", params: [v] });
}
const [row] = await tools.sqlite.query({ database, sql: "SELECT sum(v) AS total FROM n" });
await tools.kv.set({ key: "corpus-total", value: row?.total ?? 0 });
await tools.kv.get({ key: "corpus-total" })
