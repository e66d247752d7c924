/**
 * The command table: every CLI verb with its one-line summary and handler. `main.ts` parses
 * global flags and dispatches here; `gateway help` is generated from this table.
 * @module
 */

import type { CliContext } from "./cli_context.ts";
import { execCommand } from "./exec_command.ts";
import { runCommand } from "./run_command.ts";
import { serverCommand } from "./server_command.ts";
import { startCommand, statusCommand, stopCommand } from "./lifecycle_commands.ts";
import { toolsCommand } from "./tools_command.ts";
import { initCommand } from "./init_command.ts";
import { serviceCommand } from "./service_command.ts";
import { historyCommand } from "./history_command.ts";
import { scriptsCommand } from "./scripts_command.ts";
import {
  catalogCommand,
  describeCommand,
  guideCommand,
  searchCommand,
} from "./discovery_commands.ts";
import { cancelCommand, waitCommand } from "./run_control_commands.ts";
import { workflowCommand } from "./workflow_command.ts";
import { mcpCommand } from "./mcp_command.ts";

/** One CLI verb. */
export interface Command {
  summary: string;
  run(args: string[], context: CliContext): Promise<number>;
}

/** Every verb, in the order `gateway --help` lists them. */
export const COMMANDS: Readonly<Record<string, Command>> = {
  exec: { summary: "run inline TypeScript (argument, -, piped, or a file)", run: execCommand },
  run: { summary: "run a named script or a .ts file with arguments", run: runCommand },
  tools: { summary: "list namespaces; tools NS; tools types NS[,NS]", run: toolsCommand },
  catalog: {
    summary: "every namespace and as many signatures as a token budget allows",
    run: catalogCommand,
  },
  search: { summary: "find tools and scripts", run: searchCommand },
  describe: { summary: "the full declaration of a tool or script", run: describeCommand },
  scripts: { summary: "list named scripts; scripts init NAME", run: scriptsCommand },
  history: { summary: "recent runs; history show|rerun|save ID", run: historyCommand },
  workflow: { summary: "step through a YAML workflow: start|step|status|reset|abort|list|log", run: workflowCommand },
  wait: { summary: "wait for a yielded run", run: waitCommand },
  cancel: { summary: "stop a run in flight", run: cancelCommand },
  guide: { summary: "the guide an agent needs (same as --llm-help)", run: guideCommand },
  mcp: { summary: "serve the gateway as an MCP server on stdio", run: mcpCommand },
  server: { summary: "run the server in the foreground", run: serverCommand },
  start: { summary: "start the server in the background", run: startCommand },
  stop: { summary: "stop the background server", run: stopCommand },
  status: { summary: "whether a server runs for this data dir and root", run: statusCommand },
  init: { summary: "create .gateway/ with sample tools, scripts and workflows", run: initCommand },
  service: {
    summary: "install|uninstall|status a user service (systemd/launchd)",
    run: serviceCommand,
  },
};

/** The top-level usage text. */
export function mainUsage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) =>
    `  ${name.padEnd(width)}  ${c.summary}`
  );
  return `gateway: run TypeScript that calls MCP servers and local tools, in a sandbox.

Usage: gateway <command> [options]     (gateway <command> --help for details)
       gateway NAME.ts [args...]        run a named script

Commands:
${lines.join("\n")}

Global options:
  --root DIR        use this root (default: .gateway/ up from here, ~/.gateway, the bundled one)
  --no-autostart    fail instead of starting a server when none runs
  --version         print the version
  --llm-help        print the guide an agent needs, from the live catalogue`;
}
