/**
 * `gateway ui [--print]`: a sign-in address of the dashboard, printed, and opened in a browser
 * when there is a desktop to open it on. The address carries a code the server issued for it
 * (good for one use, within a minute), never the token: a URL ends up in the opener's and the
 * browser's command line, which every local user can read, and in the browser's history.
 * @module
 */

import type { CliContext } from "./cli_context.ts";
import { parseCommandArgs } from "./command_args.ts";

/** Usage text of `gateway ui`. */
export const UI_USAGE = `Usage: gateway ui [--print]

Prints a sign-in address of this root's gateway dashboard (starting the gateway when needed)
and opens it in a browser on a desktop; --print only prints it. The address works once,
within a minute, and leaves the browser signed in until the gateway stops.`;

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
  let code: string;
  try {
    const answer = await connection.client.send("POST", "/ui/code");
    const body = answer.body as { code?: unknown } | null;
    if (answer.status !== 200 || typeof body?.code !== "string") {
      throw new Error(`the gateway gave no sign-in code (HTTP ${answer.status})`);
    }
    code = body.code;
  } finally {
    await connection.client.close();
  }
  const url = `http://127.0.0.1:${connection.state.port}/ui/login?code=${code}`;
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
