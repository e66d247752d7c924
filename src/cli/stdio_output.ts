/**
 * The CLI's output on the process's stdout and stderr, shared by both entries (`main.ts` and
 * the installed command's `fast_main.ts`): synchronous, whole writes, and a reader that went
 * away (`gateway history | head`) handled by the entry, as Unix tools do.
 * @module
 */

import type { CliOutput } from "./cli_context.ts";

/**
 * Output on `Deno.stdout`/`Deno.stderr`. `onBrokenPipe` is called (it must not return: the
 * entry exits) when the reader of either stream has gone away.
 */
export function stdioOutput(onBrokenPipe: () => never): CliOutput {
  const encoder = new TextEncoder();
  const writeAll = (stream: typeof Deno.stdout, text: string) => {
    const bytes = encoder.encode(text);
    try {
      for (let at = 0; at < bytes.length;) at += stream.writeSync(bytes.subarray(at));
    } catch (error) {
      if (error instanceof Deno.errors.BrokenPipe) onBrokenPipe();
      throw error;
    }
  };
  return {
    out: (text) => writeAll(Deno.stdout, text),
    err: (text) => writeAll(Deno.stderr, text),
    isTty: Deno.stdout.isTerminal(),
    errIsTty: Deno.stderr.isTerminal(),
  };
}
