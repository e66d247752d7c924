// @corpus {"data": true}
const [DATA] = args; // the corpus passes the data directory
await tools.files.write_file({ path: `${DATA}/corpus-files.txt`, content: "x" });
const { content } = await tools.files.search_files({ path: DATA, pattern: "corpus-files" });
content.length > 0
