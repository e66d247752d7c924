const result = await tools.everything.echo({ message: "log" });
console.log(result);
