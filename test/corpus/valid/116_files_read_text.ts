// @corpus {"data": true}
const [DATA] = args; // the corpus passes the data directory
const { content } = await tools.files.read_text_file({ path: `${DATA}/hello.txt` });
content.trim()
