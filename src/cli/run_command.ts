/**
 * `gateway run NAME|FILE [args…]`: run a named script from `ROOT/scripts`, or a `.ts` file,
 * with its arguments. `gateway NAME.ts` is the same.
 * @module
 */

import { resolve } from "node:path";
import type { CliContext } from "./cli_context.ts";
import { intFlag, parseCommandArgs } from "./command_args.ts";
import { readPipedStdin, submitRun } from "./submit_run.ts";
import { UsageError } from "./usage_error.ts";

/** Usage text of `gateway run`. */
export const RUN_USAGE = `Usage: gateway run [options] NAME|FILE.ts [ARGS...]

Runs a named script (ROOT/scripts/NAME.ts) or a script file; output is its stdout.
Options are those of gateway exec (--json, --no-check, --timeout, --yield, --no-stdin,
--allow-*).

Examples:
  gateway run hello World
  gateway run ./report.ts -- --verbose`;

/** Runs `gateway run`. */
export async function runCommand(args: string[], context: CliContext): Promise<number> {
  // Flags go before the name; everything after it belongs to the script.
  const at = args.findIndex((a) => !a.startsWith("-"));
  const ours = at >= 0 ? args.slice(0, at) : args;
  const theirs = at >= 0 ? args.slice(at) : [];
  const parsed = parseCommandArgs(ours, {
    booleans: ["json", "no-check", "check", "no-stdin"],
    strings: ["timeout", "yield"],
    permissions: true,
  }, RUN_USAGE);
  const [target, ...scriptArgs] = theirs;
  if (target === undefined) throw new UsageError("run needs a script name or file", RUN_USAGE);
  const argv = [...scriptArgs.filter((a, i) => !(a === "--" && i === 0)), ...parsed.rest];
  const flags = {
    json: parsed.flags.json === true,
    check: parsed.flags["no-check"] ? false : parsed.flags.check ? true : undefined,
    timeoutMs: intFlag(parsed.flags.timeout, "timeout", RUN_USAGE),
    yieldAfterMs: intFlag(parsed.flags.yield, "yield", RUN_USAGE),
    permissions: parsed.permissions,
    args: argv,
    stdin: parsed.flags["no-stdin"] ? "" : await readPipedStdin(),
  };
  if (
    target.endsWith(".ts") && (target.includes("/") || await exists(resolve(context.cwd, target)))
  ) {
    const path = resolve(context.cwd, target);
    if (!(await exists(path))) {
      throw new UsageError(`Cannot read script file "${path}": it does not exist`, RUN_USAGE);
    }
    const source = await Deno.readTextFile(path);
    return await submitRun(context, "exec", { source }, { ...flags });
  }
  return await submitRun(context, "run", { name: target }, flags);
}

async function exists(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}
