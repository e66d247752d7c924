/**
 * `gateway ui [--print]`: the dashboard's URL with its token, printed, and opened in a browser
 * when there is a desktop to open it on (SPEC §14).
 * @module
 */

import type { CliContext } from "./cli_context.ts";
import { parseCommandArgs } from "./command_args.ts";

/** Usage text of `gateway ui`. */
export const UI_USAGE = `Usage: gateway ui [--print]

Prints the dashboard URL of this root's gateway (starting it when needed), with the token
that opens it, and opens it in a browser on a desktop. --print only prints it.`;

/** The command that opens a URL on this desktop, or null when there is none. */
function opener(env: Record<string, string | undefined>): string | null {
  if (Deno.build.os === "darwin") return "open";
  if (Deno.build.os === "windows") return null;
  return env.DISPLAY || env.WAYLAND_DISPLAY ? "xdg-open" : null;
}

/** Runs `gateway ui`. */
export async function uiCommand(args: string[], context: CliContext): Promise<number> {
  const parsed = parseCommandArgs(args, { booleans: ["print"] }, UI_USAGE);
  const connection = await context.connect();
  await connection.client.close();
  const url = `http://127.0.0.1:${connection.state.port}/ui?token=${connection.token}`;
  context.output.out(`${url}\n`);
  const open = parsed.flags.print ? null : opener(context.env);
  if (open === null) return 0;
  try {
    const child = new Deno.Command(open, {
      args: [url],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    const status = await child.status;
    if (!status.success) context.output.err(`warning: ${open} could not open the URL\n`);
  } catch (error) {
    context.output.err(`warning: cannot run ${open}: ${(error as Error).message}\n`);
  }
  return 0;
}
