Deno.inspect({ a: 1 })
