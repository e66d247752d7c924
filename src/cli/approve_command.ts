/**
 * `gateway approve RUNID [--deny]` answers calls an `ask` policy rule holds; `gateway
 * approvals` lists them.
 * @module
 */

import type { CliContext } from "./cli_context.ts";
import { parseCommandArgs } from "./command_args.ts";
import { UsageError } from "./usage_error.ts";
import { countOf } from "../protocol/count_of.ts";
import type { PendingApproval } from "../protocol/wire_views.ts";

/** Usage text of `gateway approve`. */
export const APPROVE_USAGE = `Usage: gateway approve RUNID[:N] [--deny] [--by NAME]
       gateway approvals [--json]

A policy rule with "action": "ask" holds a tool call until someone answers; the run keeps
going meanwhile. approve allows every held call of the run (or one, by RUNID:N); --deny
denies. Unanswered by the run's deadline means denied. The answer is kept in history.`;

/** Usage text of `gateway approvals`. */
export const APPROVALS_USAGE = `Usage: gateway approvals [--json]

Lists the tool calls an "ask" policy rule holds, with the commands that answer them
(gateway approve RUNID, or --deny).`;

/** Runs `gateway approve`. */
export async function approveCommand(args: string[], context: CliContext): Promise<number> {
  const parsed = parseCommandArgs(args, { booleans: ["deny"], strings: ["by"] }, APPROVE_USAGE);
  const id = parsed.positionals[0];
  if (!id) {
    throw new UsageError("approve needs a RUNID (gateway approvals lists them)", APPROVE_USAGE);
  }
  const allow = parsed.flags.deny !== true;
  const by = typeof parsed.flags.by === "string"
    ? parsed.flags.by
    : `cli:${context.env.USER ?? "user"}`;
  return await context.withClient(async ({ client }) => {
    const answer = await client.request<{ answered: number }>("approval.respond", {
      runId: id,
      allow,
      by,
    });
    context.output.out(
      `${allow ? "allowed" : "denied"} ${countOf(answer.answered, "held call")} of ${id}\n`,
    );
    return 0;
  });
}

/** Runs `gateway approvals`. */
export async function approvalsCommand(args: string[], context: CliContext): Promise<number> {
  const parsed = parseCommandArgs(args, { booleans: ["json"] }, APPROVALS_USAGE);
  return await context.withClient(async ({ client }) => {
    const answer = await client.request<{ pending: PendingApproval[] }>("approval.list", {});
    if (parsed.flags.json) {
      context.output.out(`${JSON.stringify(answer, null, 2)}\n`);
      return 0;
    }
    if (answer.pending.length === 0) context.output.out("no calls are waiting for approval\n");
    for (const p of answer.pending) {
      const waited = Math.round((Date.now() - p.since) / 1000);
      context.output.out(
        `${p.id}  ${p.namespace}.${p.tool}(${p.args})  ${p.rule}, waiting ${waited} s\n` +
          `    gateway approve ${p.runId}   |   gateway approve ${p.runId} --deny\n`,
      );
    }
    return 0;
  });
}
