/**
 * The full CLI (`cli/cli_main.ts`), run by the command's entry (`cli/fast_main.ts`) for every
 * invocation its fast paths leave to it, with the project's deno.json; the package's export.
 * The only place the full CLI calls `Deno.exit`: 0 success, 1 script failure, 2 usage error,
 * 124 timeout.
 * @module
 */

import type { CliContext } from "./cli/cli_context.ts";
import { lazyImport } from "./cli/lazy_import.ts";
import { stdioOutput } from "./cli/stdio_output.ts";

type CliMain = typeof import("./cli/cli_main.ts");

/** Runs the CLI with `argv` and returns the exit code (the full CLI, loaded on first use). */
export async function runCli(argv: string[], context: CliContext): Promise<number> {
  const { runCli } = await lazyImport<CliMain>("./cli/cli_main.ts", import.meta.url);
  return await runCli(argv, context);
}

if (import.meta.main) {
  const env = Deno.env.toObject();
  const cwd = env.INIT_CWD ?? Deno.cwd();
  // The reader went away (`gateway history | head`): stop quietly, as Unix tools do.
  const output = stdioOutput(() => Deno.exit(0));
  const [{ CliContext }, cli] = await Promise.all([
    lazyImport<typeof import("./cli/cli_context.ts")>("./cli/cli_context.ts", import.meta.url),
    lazyImport<CliMain>("./cli/cli_main.ts", import.meta.url),
  ]);
  const context = new CliContext({ cwd, env, output });
  let code: number;
  try {
    code = await cli.runCli(Deno.args, context);
  } catch (error) {
    code = cli.report(error, context);
  }
  Deno.exit(code);
}
