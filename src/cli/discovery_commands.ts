/**
 * `gateway catalog`, `gateway search`, `gateway describe`: discovery from the shell (SPEC §7).
 * @module
 */

import type { CliContext } from "./cli_context.ts";
import { intFlag, parseCommandArgs } from "./command_args.ts";
import { UsageError } from "./usage_error.ts";

/** Usage text of `gateway catalog`. */
export const CATALOG_USAGE = `Usage: gateway catalog [--budget TOKENS] [--json]

Every namespace with its tool count, then signatures round-robin until the budget
(default 2000 tokens) is spent; says COMPLETE or PARTIAL.`;
/** Usage text of `gateway search`. */
export const SEARCH_USAGE =
  `Usage: gateway search QUERY [--namespace NS] [--limit N] [--offset K] [--json]

Ranked tools and named scripts; "next" gives the offset of the following page.`;
/** Usage text of `gateway describe`. */
export const DESCRIBE_USAGE = `Usage: gateway describe PATH [--json]

The full declaration of a tool (tools.ns.tool) or a script's description and examples.`;

/** Runs `gateway catalog`. */
export async function catalogCommand(args: string[], context: CliContext): Promise<number> {
  const parsed = parseCommandArgs(args, { booleans: ["json"], strings: ["budget"] }, CATALOG_USAGE);
  if (parsed.flags.help) {
    context.output.out(`${CATALOG_USAGE}\n`);
    return 0;
  }
  const budget = intFlag(parsed.flags.budget, "budget", CATALOG_USAGE);
  return await context.withClient(async ({ client }) => {
    const answer = await client.request<{ text: string }>("catalog", budget ? { budget } : {});
    context.output.out(
      parsed.flags.json ? `${JSON.stringify(answer, null, 2)}\n` : `${answer.text}\n`,
    );
    return 0;
  });
}

/** Runs `gateway search`. */
export async function searchCommand(args: string[], context: CliContext): Promise<number> {
  const parsed = parseCommandArgs(args, {
    booleans: ["json"],
    strings: ["namespace", "limit", "offset"],
  }, SEARCH_USAGE);
  if (parsed.flags.help) {
    context.output.out(`${SEARCH_USAGE}\n`);
    return 0;
  }
  const query = parsed.positionals.join(" ");
  if (query === "" && typeof parsed.flags.namespace !== "string") {
    throw new UsageError("search needs a QUERY (or --namespace NS to list one)", SEARCH_USAGE);
  }
  const limit = intFlag(parsed.flags.limit, "limit", SEARCH_USAGE);
  const offset = intFlag(parsed.flags.offset, "offset", SEARCH_USAGE);
  return await context.withClient(async ({ client }) => {
    const answer = await client.request<{
      results: Array<{ path: string; kind: string; signature: string; description: string }>;
      total: number;
      next: number | null;
    }>("search", {
      query,
      ...(typeof parsed.flags.namespace === "string" ? { namespace: parsed.flags.namespace } : {}),
      ...(limit !== undefined ? { limit } : {}),
      ...(offset !== undefined ? { offset } : {}),
    });
    if (parsed.flags.json) {
      context.output.out(`${JSON.stringify(answer, null, 2)}\n`);
      return 0;
    }
    for (const hit of answer.results) {
      context.output.out(`${hit.signature}\n${hit.description ? `    ${hit.description}\n` : ""}`);
    }
    context.output.out(
      `${answer.results.length} of ${answer.total} shown${
        answer.next !== null ? `; more: --offset ${answer.next}` : ""
      }\n`,
    );
    return 0;
  });
}

/** Runs `gateway describe`. */
export async function describeCommand(args: string[], context: CliContext): Promise<number> {
  const parsed = parseCommandArgs(args, { booleans: ["json"] }, DESCRIBE_USAGE);
  if (parsed.flags.help) {
    context.output.out(`${DESCRIBE_USAGE}\n`);
    return 0;
  }
  const path = parsed.positionals[0];
  if (!path) throw new UsageError("describe needs a PATH like tools.kv.get", DESCRIBE_USAGE);
  return await context.withClient(async ({ client }) => {
    const answer = await client.request<{ text: string }>("describe", { path });
    context.output.out(
      parsed.flags.json ? `${JSON.stringify(answer, null, 2)}\n` : `${answer.text}\n`,
    );
    return 0;
  });
}
