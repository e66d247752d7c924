/**
 * `gateway import PATH`: copies the MCP servers of a `.mcp.json` (Claude Code) or a Claude
 * Desktop `claude_desktop_config.json` into the root's `gateway.json`, keeping its comments
 * and `${VAR}` references, and says what it took — with the command each will run or the URL
 * it will reach, since the file may be someone else's — what it kept and what it left out. Names
 * and values from the file are printed with their control characters escaped, so the file cannot
 * rewrite what the terminal shows.
 * @module
 */

import { join, resolve } from "node:path";
import { applyEdits, modify, parse } from "jsonc-parser";
import { ConfigError } from "../config/config_error.ts";
import { parseConfigText } from "../config/config_text.ts";
import { parseForeignServers } from "../config/mcp_json.ts";
import { printable, shellWord } from "../config/printable_text.ts";
import type { CliContext } from "./cli_context.ts";
import { parseCommandArgs } from "./command_args.ts";
import { UsageError } from "./usage_error.ts";

/** Usage text of `gateway import`. */
export const IMPORT_USAGE = `Usage: gateway import PATH [--root DIR]

Copies the mcpServers of PATH (a project's .mcp.json, or Claude Desktop's
claude_desktop_config.json) into ROOT/gateway.json. Servers the root already has are kept;
\${VAR} references stay as they are and are read from the server's environment or
ROOT/gateway.env. Without gateway.json, a root reads its project's .mcp.json directly.`;

/** Runs `gateway import`. */
export async function importCommand(args: string[], context: CliContext): Promise<number> {
  const parsed = parseCommandArgs(args, {}, IMPORT_USAGE);
  const source = parsed.positionals[0];
  if (source === undefined || parsed.positionals.length > 1) {
    throw new UsageError(
      "import needs one PATH (a .mcp.json or Claude Desktop config)",
      IMPORT_USAGE,
    );
  }
  const root = context.root;
  if (root.source === "bundled") {
    throw new UsageError(
      `The root here is the gateway's own installation (${root.dir}): run gateway init in your project first, or pass --root DIR`,
      IMPORT_USAGE,
    );
  }
  const from = resolve(context.cwd, source);
  let text: string;
  try {
    text = await Deno.readTextFile(from);
  } catch (error) {
    throw new ConfigError(`Cannot read "${from}": ${(error as Error).message}`, { cause: error });
  }
  const foreign = parseForeignServers(text, from);
  const target = root.configFile ?? join(root.dir, "gateway.json");
  let config = "{\n}\n";
  try {
    config = await Deno.readTextFile(target);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  // The target must be valid before and after: unset variables are fine here (warnings).
  parseConfigText(config, { file: target, env: {} });
  const existing = new Set(
    Object.keys((parse(config) as { mcpServers?: Record<string, unknown> }).mcpServers ?? {}),
  );
  const taken: string[] = [];
  const kept: string[] = [];
  for (const [name, entry] of Object.entries(foreign.servers)) {
    if (existing.has(name)) {
      kept.push(name);
      continue;
    }
    config = applyEdits(
      config,
      modify(config, ["mcpServers", name], entry, {
        formattingOptions: { insertSpaces: true, tabSize: 2, eol: "\n" },
      }),
    );
    taken.push(name);
  }
  parseConfigText(config, { file: target, env: {} });
  if (taken.length > 0) await Deno.writeTextFile(target, config);
  const out = context.output.out;
  for (const name of taken) {
    out(
      `imported mcpServers "${printable(name)}" from ${printable(from)}: ` +
        `${whatItDoes(foreign.servers[name]!)}\n`,
    );
  }
  for (const name of kept) {
    out(`kept mcpServers "${printable(name)}": ${printable(target)} already has it\n`);
  }
  for (const warning of foreign.warnings) context.output.err(`warning: ${printable(warning)}\n`);
  out(
    taken.length > 0
      ? `wrote ${printable(target)}: ${taken.length} server${taken.length === 1 ? "" : "s"} ` +
        `added; the gateway runs ${taken.length === 1 ? "it" : "them"} as shown once it loads ` +
        `this config\n`
      : `nothing to import into ${printable(target)}\n`,
  );
  return 0;
}

/** What a server entry makes the gateway do: the command it runs, or the URL it reaches. */
export function whatItDoes(entry: Record<string, unknown>): string {
  const names = (value: unknown) =>
    value !== null && typeof value === "object" ? Object.keys(value).map(printable).join(", ") : "";
  if (typeof entry.url === "string") {
    const headers = names(entry.headers);
    return `connects to ${printable(entry.url)}${headers ? ` with headers ${headers}` : ""}`;
  }
  const args = Array.isArray(entry.args) ? entry.args.map(String) : [];
  const env = names(entry.env);
  const cwd = typeof entry.cwd === "string" ? ` in ${shellWord(entry.cwd)}` : "";
  return `runs ${[String(entry.command), ...args].map(shellWord).join(" ")}${cwd}` +
    (env ? ` with environment ${env}` : "");
}
