/**
 * `gateway tools`: namespaces with status and tool counts; `gateway tools NS` lists one
 * namespace's tools and prompts; `gateway tools types NS[,NS]` prints TypeScript.
 * @module
 */

import type { CliContext } from "./cli_context.ts";
import { parseCommandArgs } from "./command_args.ts";
import { UsageError } from "./usage_error.ts";
import type { NamespaceSummary } from "../protocol/wire_views.ts";
import { type NamespaceListing, printNamespaceListing } from "./tools_listing.ts";
import { countOf } from "../protocol/count_of.ts";
import { nearestNames } from "../protocol/names.ts";

/** Usage text of `gateway tools`. */
export const TOOLS_USAGE = `Usage: gateway tools [NS] [--json] [--warnings]
       gateway tools types [NS[,NS...]]

Lists namespaces (ready, starting, failed: reason) with tool counts; with NS, that namespace's
tools; "types" prints the TypeScript scripts are checked against. Problems with the config are
always shown; --warnings lists what namespaces reported (tools left out, renamed names).`;

/** Runs `gateway tools`. */
export async function toolsCommand(args: string[], context: CliContext): Promise<number> {
  const parsed = parseCommandArgs(args, { booleans: ["json", "warnings"] }, TOOLS_USAGE);
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
      type Hit = { path: string; signature: string; description: string; security?: string };
      // Discovery waits briefly for a namespace that is still starting; ask it first so the
      // status below is the one after that wait.
      await client.request("catalog", { budget: 1 });
      const listed = await client.request<{ namespaces: NamespaceSummary[] }>("namespaces", {});
      const ns = listed.namespaces.find((n) => n.name === first || n.identifier === first);
      if (!ns) {
        const names = listed.namespaces.map((n) => n.identifier);
        const near = nearestNames(first, names, { limit: 2 });
        // Not a usage mistake: the name is wrong, so no pointer to the usage.
        throw new UsageError(
          `Unknown namespace "${first}"${
            near.length > 0 ? `: did you mean ${near.map((n) => `"${n}"`).join(" or ")}?` : ""
          } (the namespaces: ${names.join(", ") || "none"})`,
        );
      }
      // Every tool, page by page (a namespace may hold more than one page).
      const hits: Hit[] = [];
      for (let offset: number | null = 0; offset !== null;) {
        const page: { results: Hit[]; next: number | null } = await client.request(
          "search",
          { query: "", namespace: ns.name, limit: 200, offset },
        );
        hits.push(...page.results);
        offset = page.next;
      }
      if (parsed.flags.json) {
        context.output.out(`${JSON.stringify({ ...ns, tools: hits }, null, 2)}\n`);
        return 0;
      }
      const status = ns.status === "failed" ? `failed: ${ns.reason ?? ""}` : ns.status;
      context.output.out(
        `${ns.identifier} (${ns.kind}, ${status}): ${countOf(hits.length, "tool")}\n`,
      );
      for (const hit of hits) {
        context.output.out(
          `${hit.signature}\n${hit.description ? `    ${hit.description}\n` : ""}${
            hit.security ? `    security: ${hit.security}\n` : ""
          }`,
        );
      }
      if (ns.notes && ns.notes.length > 0) {
        context.output.out(`notes (${ns.notes.length}):\n`);
        for (const note of ns.notes) context.output.out(`  ${note}\n`);
      }
      if (ns.prompts && ns.prompts.length > 0) {
        context.output.out(`prompts (${ns.prompts.length}):\n`);
        for (const prompt of ns.prompts) {
          context.output.out(
            `  ${prompt.name}${prompt.description ? `: ${prompt.description}` : ""}\n`,
          );
        }
      }
      return 0;
    }
    // Right after a start (this command may have started the server) the namespaces are
    // still connecting: the answer waits, bounded, until they have settled.
    const answer = await client.request<NamespaceListing>("namespaces", { settle: true });
    printNamespaceListing(answer, context.output, parsed.flags);
    return 0;
  });
}
