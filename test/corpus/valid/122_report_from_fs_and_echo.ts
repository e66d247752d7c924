const text = await tools.fs.read({ path: "hello.txt" });
const words = text.split(/\s+/).filter(Boolean);
const echoed = await tools.everything.echo({ message: `${words.length} words` });
console.log(echoed);
