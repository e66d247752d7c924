/**
 * `gateway exec`: run inline TypeScript — an argument, `-` (source on stdin), piped source, or
 * a `.ts` file path — with the script's arguments after `--`.
 * @module
 */

import { resolve } from "node:path";
import type { CliContext } from "./cli_context.ts";
import { intFlag, parseCommandArgs } from "./command_args.ts";
import { readPipedStdin, submitRun } from "./submit_run.ts";
import { UsageError } from "./usage_error.ts";

/** Usage text of `gateway exec`. */
export const EXEC_USAGE = `Usage: gateway exec [CODE | FILE.ts | -] [options] [-- ARGS...]

Runs TypeScript in a sandboxed Deno subprocess. Tools are under tools.<namespace>.<tool>().
The value of the last expression is printed as the result.

  CODE            inline source, e.g. '1 + 1' or 'await tools.NS.TOOL({ … })'
                  (gateway tools lists this root's namespaces; gateway describe a tool)
  FILE.ts         a file to run as a snippet
  -               read the source from stdin (otherwise piped stdin is the script's stdin())

Options:
  --json          print the whole run document as JSON
  --no-check      skip the type check
  --timeout MS    stop the run after MS milliseconds (exit 124)
  --no-stdin      do not read piped stdin (it is read to its end otherwise)
  --yield MS      answer {status:"running"} after MS; then use gateway wait ID
  --allow-net[=hosts] --allow-read[=paths] --allow-write[=paths]
  --allow-env[=names] --allow-run[=cmds]
                  grant the script more (within exec.maxPermissions)
  --root DIR      use this root; --no-autostart: fail when no server runs

Examples:
  gateway exec '1 + 1'
  echo '{"a":1}' | gateway exec 'stdin().json()'
  gateway exec script.ts -- arg1 arg2`;

/** Runs `gateway exec`. */
export async function execCommand(args: string[], context: CliContext): Promise<number> {
  const parsed = parseCommandArgs(args, {
    booleans: ["json", "no-check", "check", "no-stdin"],
    strings: ["timeout", "yield"],
    permissions: true,
  }, EXEC_USAGE);
  if (parsed.positionals.length > 1) {
    throw new UsageError(
      `exec takes one source argument, got ${parsed.positionals.length}; put script arguments after --`,
      EXEC_USAGE,
    );
  }
  const first = parsed.positionals[0];
  let source: string;
  let stdin = "";
  if (first === undefined || first === "-") {
    if (Deno.stdin.isTerminal()) {
      throw new UsageError(
        "exec needs source: an argument, a .ts file, or piped stdin",
        EXEC_USAGE,
      );
    }
    source = await readPipedStdin();
  } else {
    const path = resolve(context.cwd, first);
    let fromFile: string | null = null;
    if (/\.(ts|js|mts)$/.test(first)) {
      try {
        fromFile = await Deno.readTextFile(path);
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
        throw new UsageError(`Cannot read script file "${path}": it does not exist`, EXEC_USAGE);
      }
    }
    source = fromFile ?? first;
    // A caller that leaves a pipe open without writing (some agent harnesses do) would
    // block here; --no-stdin skips reading it.
    stdin = parsed.flags["no-stdin"] ? "" : await readPipedStdin();
  }
  return await submitRun(context, "exec", { source }, {
    json: parsed.flags.json === true,
    check: parsed.flags["no-check"] ? false : parsed.flags.check ? true : undefined,
    timeoutMs: intFlag(parsed.flags.timeout, "timeout", EXEC_USAGE),
    yieldAfterMs: intFlag(parsed.flags.yield, "yield", EXEC_USAGE),
    permissions: parsed.permissions,
    args: parsed.rest,
    stdin,
  });
}
