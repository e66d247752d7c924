// @corpus {"data": true}
const [DATA] = args; // the corpus passes the data directory
const { content } = await tools.files.list_directory({ path: DATA });
content.includes("hello.txt")
