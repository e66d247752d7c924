typeof Deno.version.deno;
