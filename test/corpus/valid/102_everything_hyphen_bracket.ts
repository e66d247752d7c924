const r = await tools.everything["get-sum"]({ a: 1, b: 1 });
String(r)
