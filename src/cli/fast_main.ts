/**
 * The command's one entry (`deno task install`, `deno task gateway`, the tests' harness), run
 * from its bundle (`fast_main.bundle.js`, built by `deno task bundle`) with `--no-config`:
 * `gateway exec CODE` against a running server is what an agent pays for on every run, and
 * reading deno.json and parsing deno.lock would cost that process CPU it never needs (the fast
 * path loads no package); `gateway start` on a root with no server starts it here too
 * (`fast_start.ts`), and `gateway tools` lists a running server's namespaces
 * (`fast_tools.ts`). Every other invocation goes to the full CLI (`src/main.ts`) in a child
 * `deno run` given the project's deno.json, so the full CLI's npm packages stay pinned and
 * checked against deno.lock. It runs with `--v8-flags=--single-threaded` (deno.json's `gateway`
 * and `install` tasks): V8's platform threads cost a process this short more to start than
 * they save it.
 * @module
 */

import { fastExec, readStdinText } from "./fast_exec.ts";
import { fastStart } from "./fast_start.ts";
import { fastTools } from "./fast_tools.ts";
import { stdioOutput } from "./stdio_output.ts";

/**
 * Signals a user or a supervisor sends the command, passed on to the full CLI's process
 * (Windows delivers only Ctrl-C and Ctrl-Break to a listener).
 */
const FORWARDED_SIGNALS: readonly Deno.Signal[] = Deno.build.os === "windows"
  ? ["SIGINT", "SIGBREAK"]
  : ["SIGINT", "SIGTERM", "SIGHUP"];

/**
 * The `deno` arguments that run the full CLI with `argv`: the same permissions as the
 * installed command, and the project's deno.json (its import map and lock) named explicitly.
 */
export function fullCliArgs(argv: readonly string[]): string[] {
  return [
    "run",
    "--allow-all",
    "--no-prompt",
    "--config",
    pathOf(new URL("../../deno.json", import.meta.url)),
    pathOf(new URL("../main.ts", import.meta.url)),
    ...argv,
  ];
}

/** A `file:` URL's path (`node:url`'s `fileURLToPath` would load the Node compatibility layer). */
function pathOf(url: URL): string {
  const path = decodeURIComponent(url.pathname);
  return Deno.build.os === "windows" ? path.slice(1).replaceAll("/", "\\") : path;
}

/**
 * Runs the full CLI in a child with this process's stdio, environment and directory, passes
 * the signals above on to it, and answers its exit code (128 + the signal's number when a
 * signal ended it, as a shell reports it).
 */
export async function runFullCli(argv: readonly string[]): Promise<number> {
  const child = new Deno.Command(Deno.execPath(), {
    args: fullCliArgs(argv),
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
  const forwarders = FORWARDED_SIGNALS.map((signal) => {
    const forward = () => {
      try {
        child.kill(signal);
      } catch {
        // the child has exited already
      }
    };
    Deno.addSignalListener(signal, forward);
    return () => Deno.removeSignalListener(signal, forward);
  });
  try {
    return (await child.status).code;
  } finally {
    for (const remove of forwarders) remove();
  }
}

if (import.meta.main) {
  const env = Deno.env.toObject();
  // The reader went away (`gateway history | head`): stop quietly, as Unix tools do.
  const output = stdioOutput(() => Deno.exit(0));
  const cwd = env.INIT_CWD ?? Deno.cwd();
  const fast = await fastExec({
    argv: Deno.args,
    env,
    cwd,
    output,
    readStdin: readStdinText,
  }) ?? await fastStart({ argv: Deno.args, env, cwd, output }) ??
    await fastTools({ argv: Deno.args, env, cwd, output });
  Deno.exit(fast ?? await runFullCli(Deno.args));
}
