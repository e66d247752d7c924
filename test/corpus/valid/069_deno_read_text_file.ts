// @corpus {"permissions": {"read": ["./data"]}}
await Deno.readTextFile("./data/hello.txt")
