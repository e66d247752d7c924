/**
 * The fast path of `gateway tools` (the listing, optionally `--json`/`--warnings`) against a
 * running server: like `fast_exec.ts`, only Deno APIs, the socket client and the printer, so
 * a model checking what is available pays what an `exec` pays. Anything else (`tools NS`,
 * `tools types`, no live server for the root) returns null and the full CLI runs.
 * @module
 */

import { fastConnection } from "./fast_connection.ts";
import type { CliOutput } from "./cli_context.ts";
import { type NamespaceListing, printNamespaceListing } from "./tools_listing.ts";

/** What `gateway tools` reads of its invocation. */
export interface FastToolsInput {
  argv: readonly string[];
  env: Record<string, string | undefined>;
  cwd: string;
  output: CliOutput;
}

/**
 * The flags of the one shape the fast path serves (`tools` alone, `--json`, `--warnings`,
 * `--root DIR`); null for anything else.
 */
export function parseSimpleTools(
  argv: readonly string[],
): { rootFlag: string | null; json: boolean; warnings: boolean } | null {
  let rootFlag: string | null = null;
  let command: string | undefined;
  let json = false;
  let warnings = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--root") {
      const value = argv[++i];
      if (value === undefined) return null;
      rootFlag = value;
    } else if (arg.startsWith("--root=")) rootFlag = arg.slice("--root=".length);
    else if (arg === "--json") json = true;
    else if (arg === "--warnings") warnings = true;
    else if (command === undefined && arg === "tools") command = arg;
    else return null;
  }
  return command === "tools" ? { rootFlag, json, warnings } : null;
}

/** Runs a simple `gateway tools`; null when the full CLI must (nothing printed then). */
export async function fastTools(input: FastToolsInput): Promise<number | null> {
  const simple = parseSimpleTools(input.argv);
  if (simple === null) return null;
  const connection = fastConnection({ rootFlag: simple.rootFlag, env: input.env, cwd: input.cwd });
  if (connection === null) return null;
  const { client } = connection;
  try {
    let answer: NamespaceListing;
    try {
      answer = await client.request("namespaces", { settle: true }) as NamespaceListing;
    } catch {
      return null; // no answer: the full path starts a server or says why not
    }
    printNamespaceListing(answer, input.output, simple);
    return 0;
  } finally {
    await client.close();
  }
}
