await tools.fs.read({ path: "hello.txt" })
