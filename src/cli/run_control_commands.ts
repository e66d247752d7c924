/**
 * `gateway wait ID` (the rest of a yielded run) and `gateway cancel ID` (stop one).
 * @module
 */

import type { RunDocument } from "../protocol/run_document.ts";
import { printApprovalNotices } from "./approval_notice.ts";
import type { CliContext } from "./cli_context.ts";
import { parseCommandArgs } from "./command_args.ts";
import { printRun, runExitCode } from "./print.ts";
import { UsageError } from "./usage_error.ts";

/** Usage text of `gateway wait`. */
export const WAIT_USAGE = `Usage: gateway wait ID [--json]

Waits for a run answered with {status:"running"} (--yield) and prints the rest of it: the
output the yielded answer showed is not printed again (--json has the whole run).`;
/** Usage text of `gateway cancel`. */
export const CANCEL_USAGE = `Usage: gateway cancel ID

Stops a run in flight (its process group is killed; the run ends Cancelled).`;

/** Runs `gateway wait`. */
export async function waitCommand(args: string[], context: CliContext): Promise<number> {
  const parsed = parseCommandArgs(args, { booleans: ["json"] }, WAIT_USAGE);
  const runId = parsed.positionals[0];
  if (!runId) throw new UsageError("wait needs a run ID", WAIT_USAGE);
  return await context.withClient(async ({ client }) => {
    printApprovalNotices(client, context);
    const document = await client.request<RunDocument>("wait", { runId });
    if (parsed.flags.json) context.output.out(`${JSON.stringify(document, null, 2)}\n`);
    else {
      const shown = document.stdoutYielded ?? 0;
      printRun({ ...document, stdout: document.stdout.slice(shown) }, context.output, {
        streamed: false,
      });
    }
    return runExitCode(document);
  });
}

/** Runs `gateway cancel`. */
export async function cancelCommand(args: string[], context: CliContext): Promise<number> {
  const parsed = parseCommandArgs(args, {}, CANCEL_USAGE);
  const runId = parsed.positionals[0];
  if (!runId) throw new UsageError("cancel needs a run ID", CANCEL_USAGE);
  return await context.withClient(async ({ client }) => {
    await client.request("cancel", { runId });
    context.output.out(`cancelled ${runId}\n`);
    return 0;
  });
}
