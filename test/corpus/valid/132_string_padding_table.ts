const rows = [["name", "n"], ["kv", "4"]];
for (const [name, n] of rows) console.log(name!.padEnd(6), n);
