/**
 * The fast path of `gateway tools` (the listing, optionally `--json`/`--warnings`) against a
 * running server: like `fast_exec.ts`, only Deno APIs, the lean wire client and the printer, so
 * a model checking what is available pays what an `exec` pays. Anything else (`tools NS`,
 * `tools types`, no live server for the root) returns null and the full CLI runs.
 * @module
 */

import { leanGatewayPaths } from "../config/lean_gateway_paths.ts";
import { type ServerState, serverStatePath } from "../config/server_state.ts";
import { readTokenSync } from "../config/token_file.ts";
import { LeanGatewayClient } from "../client/lean_gateway_client.ts";
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
  const paths = leanGatewayPaths({ flag: simple.rootFlag, env: input.env, cwd: input.cwd });
  if (paths === null) return null;
  let client: LeanGatewayClient;
  try {
    const state = JSON.parse(Deno.readTextFileSync(serverStatePath(paths.dataDir))) as ServerState;
    if (state.root !== paths.rootDir || typeof state.port !== "number") return null;
    client = await LeanGatewayClient.open({
      host: "127.0.0.1",
      port: state.port,
      token: readTokenSync(paths.dataDir),
      timeoutMs: 2000,
      first: { method: "namespaces", params: { settle: true } },
    });
  } catch {
    return null; // no usable server: the full path starts one or explains why not
  }
  try {
    try {
      await client.handshake;
    } catch {
      return null; // a refused upgrade read nothing: the full path takes over
    }
    const answer = await client.firstAnswer as NamespaceListing;
    printNamespaceListing(answer, input.output, simple);
    return 0;
  } catch {
    return null;
  } finally {
    await client.close();
  }
}
