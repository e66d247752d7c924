// @corpus {"args": ["a", "b"]}
Deno.args.length
