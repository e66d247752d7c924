await tools.sqlite.execute({ database: "corpus_c", sql: "CREATE TABLE IF NOT EXISTS x (a)" });
(await tools.sqlite.databases()).includes("corpus_c")
