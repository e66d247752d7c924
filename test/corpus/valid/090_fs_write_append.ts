await tools.fs.write({ path: "corpus-log.txt", content: "a\n" });
await tools.fs.write({ path: "corpus-log.txt", content: "b\n", append: true });
(await tools.fs.read({ path: "corpus-log.txt" })).split("\n").filter(Boolean).length
