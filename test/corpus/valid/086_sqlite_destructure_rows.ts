await tools.sqlite.execute({ database: "corpus_d", sql: "CREATE TABLE IF NOT EXISTS t (a)" });
const [{ answer }] = await tools.sqlite.query({ database: "corpus_d", sql: "SELECT 42 AS answer" }) as [{ answer: number }];
answer
