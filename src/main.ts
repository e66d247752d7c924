/**
 * The CLI entry: `gateway exec CODE` with a server running goes out on the fast path
 * (`cli/fast_exec.ts`), which loads next to nothing; anything else loads the full CLI
 * (`cli/cli_main.ts`). The only place that calls `Deno.exit`: 0 success, 1 script failure,
 * 2 usage error, 124 timeout (SPEC §8).
 * @module
 */

import type { CliContext } from "./cli/cli_context.ts";
import { fastExec, readStdinText, stdinIsEmpty } from "./cli/fast_exec.ts";
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
  // `gateway exec CODE` with a server running loads next to nothing before it sends (issue
  // 12); everything else, and any exec it does not handle, loads the full CLI below.
  const fast = await fastExec({
    argv: Deno.args,
    env,
    cwd,
    output,
    readStdin: readStdinText,
    stdinIsEmpty,
  });
  if (fast !== null) Deno.exit(fast);
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
