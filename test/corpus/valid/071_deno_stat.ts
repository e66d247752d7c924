// @corpus {"permissions": {"read": ["./data"]}}
(await Deno.stat("./data/hello.txt")).isFile
