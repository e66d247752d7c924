/**
 * `gateway tools`: namespaces with status and tool counts; `gateway tools NS` lists one
 * namespace's tools and prompts; `gateway tools types NS[,NS]` prints TypeScript.
 * @module
 */

import type { CliContext } from "./cli_context.ts";
import { parseCommandArgs } from "./command_args.ts";
import type { NamespaceSummary } from "../protocol/wire_views.ts";

/** Usage text of `gateway tools`. */
export const TOOLS_USAGE = `Usage: gateway tools [NS] [--json]
       gateway tools types [NS[,NS...]]

Lists namespaces (ready, starting, failed: reason) with tool counts; with NS, that namespace's
tools; "types" prints the TypeScript scripts are checked against.`;

/** Runs `gateway tools`. */
export async function toolsCommand(args: string[], context: CliContext): Promise<number> {
  const parsed = parseCommandArgs(args, { booleans: ["json"] }, TOOLS_USAGE);
  if (parsed.flags.help) {
    context.output.out(`${TOOLS_USAGE}\n`);
    return 0;
  }
  const [first, second] = parsed.positionals;
  return await context.withClient(async ({ client }) => {
    if (first === "types") {
      const namespaces = second ? second.split(",").filter((n) => n !== "") : undefined;
      const answer = await client.request<{ types: string }>(
        "types",
        namespaces ? { namespaces } : {},
      );
      context.output.out(`${answer.types}\n`);
      return 0;
    }
    if (first !== undefined) {
      const answer = await client.request<{ types: string }>("types", { namespaces: [first] });
      const search = await client.request<
        { results: Array<{ path: string; signature: string; description: string }> }
      >(
        "search",
        { query: "", namespace: first, limit: 200 },
      );
      if (parsed.flags.json) {
        context.output.out(
          `${JSON.stringify({ tools: search.results, types: answer.types }, null, 2)}\n`,
        );
        return 0;
      }
      for (const hit of search.results) {
        context.output.out(
          `${hit.signature}\n${hit.description ? `    ${hit.description}\n` : ""}`,
        );
      }
      const prompts = /\/\/ prompts:(.*)/.exec(answer.types);
      if (prompts) context.output.out(`prompts:${prompts[1]}\n`);
      return 0;
    }
    const answer = await client.request<{ namespaces: NamespaceSummary[]; warnings: string[] }>(
      "namespaces",
      {},
    );
    if (parsed.flags.json) {
      context.output.out(`${JSON.stringify(answer, null, 2)}\n`);
      return 0;
    }
    if (answer.namespaces.length === 0) {
      context.output.out("no namespaces (add ROOT/tools/*.ts or mcpServers)\n");
    }
    for (const ns of answer.namespaces) {
      const status = ns.status === "failed" ? `failed: ${ns.reason ?? ""}` : ns.status;
      context.output.out(
        `${ns.identifier.padEnd(16)} ${ns.kind.padEnd(6)} ${
          String(ns.tools).padStart(3)
        } tools  ${status}\n`,
      );
    }
    for (const warning of answer.warnings) context.output.err(`warning: ${warning}\n`);
    return 0;
  });
}
