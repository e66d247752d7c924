typeof Deno.version.deno
