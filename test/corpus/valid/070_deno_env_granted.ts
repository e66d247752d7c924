// @corpus {"permissions": {"env": ["HOME"]}}
Deno.env.get("HOME") !== undefined
