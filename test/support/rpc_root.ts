/**
 * A small root for interface tests: the bundled `kv` and `fs` modules, an `echo` module and a
 * named script, so RPC and HTTP tests reach real tools without the whole bundled set.
 * @module
 */

import type { RootFiles } from "./gateway_harness.ts";

const BUNDLED = new URL("../../tools/", import.meta.url);

/** The files of the root: `gateway.json` (any free port), tools and `scripts/greet.ts`. */
export async function rpcRootFiles(): Promise<RootFiles> {
  return {
    "gateway.json": '{ "port": 0 }\n',
    "tools/kv.ts": await Deno.readTextFile(new URL("kv.ts", BUNDLED)),
    "tools/fs.ts": await Deno.readTextFile(new URL("fs.ts", BUNDLED)),
    "tools/echo.ts": `/** Test tools. @module */

/** Echoes its argument. */
export function echo(args: { value: string }): string {
  return args.value;
}

/** Always fails with the given message. */
export function fail(args: { message: string }): never {
  throw new Error(args.message);
}
`,
    "scripts/greet.ts": `/**
 * Greets someone by name.
 * @param name who to greet
 * @example gateway run greet Ada
 */
const who = args[0] ?? "world";
console.log(await tools.echo.echo({ value: \`Hello, \${who}!\` }));
`,
  };
}
