/**
 * `gateway workflow start|step|status|reset|abort|list|log`: step an agent through a YAML
 * workflow. Plain text for agents by default, `--json` for programs.
 * @module
 */

import { resolve } from "node:path";
import type { CliContext } from "./cli_context.ts";
import { parseCommandArgs } from "./command_args.ts";
import { UsageError } from "./usage_error.ts";

/** Usage text of `gateway workflow`. */
export const WORKFLOW_USAGE = `Usage: gateway workflow start FILE [--session NAME] [--var k=v]...
       gateway workflow step [--end-loop "reason"] [--session NAME]
       gateway workflow status|reset|log [--session NAME]
       gateway workflow abort --reason "…" [--session NAME]
       gateway workflow list

FILE is a name in ROOT/workflows (with or without .yaml) or a path. The default session is
one per working directory. Add --json for the machine-readable view.`;

const VERBS = new Set(["start", "step", "status", "reset", "abort", "list", "log"]);

/** Runs `gateway workflow`. */
export async function workflowCommand(args: string[], context: CliContext): Promise<number> {
  const parsed = parseCommandArgs(args, {
    booleans: ["json"],
    strings: ["session", "end-loop", "reason"],
    lists: ["var"],
  }, WORKFLOW_USAGE);
  const [verb, file] = parsed.positionals;
  if (!verb || !VERBS.has(verb)) {
    throw new UsageError(
      `workflow needs one of ${[...VERBS].join(", ")} (got "${verb ?? ""}")`,
      WORKFLOW_USAGE,
    );
  }
  if (verb === "start" && !file) {
    throw new UsageError("workflow start needs a FILE", WORKFLOW_USAGE);
  }
  if (verb === "abort" && typeof parsed.flags.reason !== "string") {
    throw new UsageError('workflow abort needs --reason "…"', WORKFLOW_USAGE);
  }
  const vars: Record<string, string> = {};
  for (const pair of (parsed.flags.var as string[] | undefined) ?? []) {
    const at = pair.indexOf("=");
    if (at <= 0) throw new UsageError(`--var takes k=v, got "${pair}"`, WORKFLOW_USAGE);
    vars[pair.slice(0, at)] = pair.slice(at + 1);
  }
  const looksLikePath = file !== undefined && (file.includes("/") || /\.ya?ml$/.test(file));
  const params = {
    cwd: context.cwd,
    ...(file ? { file: looksLikePath ? resolve(context.cwd, file) : file } : {}),
    ...(typeof parsed.flags.session === "string" ? { session: parsed.flags.session } : {}),
    ...(typeof parsed.flags["end-loop"] === "string" ? { endLoop: parsed.flags["end-loop"] } : {}),
    ...(typeof parsed.flags.reason === "string" ? { reason: parsed.flags.reason } : {}),
    ...(Object.keys(vars).length > 0 ? { vars } : {}),
  };
  return await context.withClient(async ({ client }) => {
    const answer = await client.request<{ text: string }>(`workflow.${verb}`, params);
    if (parsed.flags.json) {
      const { text: _text, ...view } = answer;
      context.output.out(`${JSON.stringify(view, null, 2)}\n`);
    } else context.output.out(answer.text.endsWith("\n") ? answer.text : `${answer.text}\n`);
    return 0;
  });
}
