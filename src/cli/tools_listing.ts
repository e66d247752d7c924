/**
 * How `gateway tools` prints the namespace listing, shared by the full command and its fast
 * path (`fast_tools.ts`), so both print the same; imports nothing heavier than types.
 * @module
 */

import type { CliOutput } from "./cli_context.ts";
import type { NamespaceSummary } from "../protocol/wire_views.ts";

/** The `namespaces` answer the listing prints. */
export interface NamespaceListing {
  namespaces: NamespaceSummary[];
  warnings: string[];
  upstreamWarnings?: string[];
  configError?: string;
}

/** Prints the listing (or its JSON); the config's and, with `warnings`, the upstreams' notes. */
export function printNamespaceListing(
  answer: NamespaceListing,
  output: CliOutput,
  flags: { json?: boolean; warnings?: boolean },
): void {
  if (flags.json) {
    output.out(`${JSON.stringify(answer, null, 2)}\n`);
    return;
  }
  if (answer.namespaces.length === 0) {
    output.out("no namespaces (add ROOT/tools/*.ts or mcpServers)\n");
  }
  for (const ns of answer.namespaces) {
    const status = ns.status === "failed" ? `failed: ${ns.reason ?? ""}` : ns.status;
    const tools = `${String(ns.tools).padStart(3)} ${ns.tools === 1 ? "tool " : "tools"}`;
    output.out(`${ns.identifier.padEnd(16)} ${ns.kind.padEnd(6)} ${tools}  ${status}\n`);
  }
  for (const warning of answer.warnings) output.err(`warning: ${warning}\n`);
  // What upstreams say (a tool left out, a name changed) is in the server log once per
  // change; here only when asked, so every listing does not repeat it.
  const upstream = answer.upstreamWarnings ?? [];
  if (flags.warnings) {
    for (const warning of upstream) output.err(`warning: ${warning}\n`);
  } else if (upstream.length > 0) {
    output.err(
      `note: ${upstream.length} warning${
        upstream.length === 1 ? "" : "s"
      } about namespaces and tools: gateway tools --warnings\n`,
    );
  }
  if (answer.configError) {
    output.err(
      `error[Config]: the last config edit did not load, the previous config is in force: ${answer.configError}\n`,
    );
  }
}
