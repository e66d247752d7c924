await tools.fs.write({ path: "corpus-out.txt", content: "x" });
const info = await tools.fs.stat({ path: "corpus-out.txt" });
info.size
