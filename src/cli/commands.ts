/**
 * The command table: every CLI verb with its one-line summary and handler. `main.ts` parses
 * global flags and dispatches here; `gateway help` is generated from this table.
 * @module
 */

import type { CliContext } from "./cli_context.ts";
import { HelpRequested } from "./help_requested.ts";

/** A verb's handler. */
export type CommandHandler = (args: string[], context: CliContext) => Promise<number>;

/**
 * One CLI verb. Handlers are imported on use, so `gateway exec` never loads the server, the
 * MCP SDK or TypeScript (the CLI's start-up is part of every run's latency).
 */
export interface Command {
  summary: string;
  load(): Promise<CommandHandler>;
}

/** Every verb as written, before `--help` handling is added to each. */
const VERBS: Readonly<Record<string, Command>> = {
  exec: {
    summary: "run inline TypeScript (argument, -, piped, or a file)",
    load: () => import("./exec_command.ts").then((m) => m.execCommand),
  },
  run: {
    summary: "run a named script or a .ts file with arguments",
    load: () => import("./run_command.ts").then((m) => m.runCommand),
  },
  tools: {
    summary: "list namespaces; tools NS; tools types NS[,NS]",
    load: () => import("./tools_command.ts").then((m) => m.toolsCommand),
  },
  catalog: {
    summary: "every namespace and as many signatures as a token budget allows",
    load: () => import("./discovery_commands.ts").then((m) => m.catalogCommand),
  },
  search: {
    summary: "find tools and scripts",
    load: () => import("./discovery_commands.ts").then((m) => m.searchCommand),
  },
  describe: {
    summary: "the full declaration of a tool or script",
    load: () => import("./discovery_commands.ts").then((m) => m.describeCommand),
  },
  scripts: {
    summary: "list named scripts; scripts init NAME",
    load: () => import("./scripts_command.ts").then((m) => m.scriptsCommand),
  },
  history: {
    summary: "recent runs; history show|rerun|save ID",
    load: () => import("./history_command.ts").then((m) => m.historyCommand),
  },
  workflow: {
    summary: "step through a YAML workflow: start|step|status|reset|abort|list|log",
    load: () => import("./workflow_command.ts").then((m) => m.workflowCommand),
  },
  auth: {
    summary: "OAuth for remote MCP servers: auth login|status|logout NS",
    load: () => import("./auth_command.ts").then((m) => m.authCommand),
  },
  approve: {
    summary: "allow (or --deny) tool calls an ask policy holds for a run",
    load: () => import("./approve_command.ts").then((m) => m.approveCommand),
  },
  approvals: {
    summary: "list tool calls waiting for approval",
    load: () => import("./approve_command.ts").then((m) => m.approvalsCommand),
  },
  wait: {
    summary: "wait for a yielded run",
    load: () => import("./run_control_commands.ts").then((m) => m.waitCommand),
  },
  cancel: {
    summary: "stop a run in flight",
    load: () => import("./run_control_commands.ts").then((m) => m.cancelCommand),
  },
  guide: {
    summary: "the guide an agent needs (same as --llm-help)",
    load: () => import("./discovery_commands.ts").then((m) => m.guideCommand),
  },
  mcp: {
    summary: "serve the gateway as an MCP server on stdio",
    load: () => import("./mcp_command.ts").then((m) => m.mcpCommand),
  },
  server: {
    summary: "run the server in the foreground",
    load: () => import("./server_command.ts").then((m) => m.serverCommand),
  },
  start: {
    summary: "start the server in the background",
    load: () => import("./lifecycle_commands.ts").then((m) => m.startCommand),
  },
  stop: {
    summary: "stop the background server",
    load: () => import("./lifecycle_commands.ts").then((m) => m.stopCommand),
  },
  status: {
    summary: "whether a server runs for this data dir and root",
    load: () => import("./lifecycle_commands.ts").then((m) => m.statusCommand),
  },
  init: {
    summary: "create .gateway/ with sample tools, scripts and workflows",
    load: () => import("./init_command.ts").then((m) => m.initCommand),
  },
  ui: {
    summary: "print (and on a desktop open) the dashboard URL with its token",
    load: () => import("./ui_command.ts").then((m) => m.uiCommand),
  },
  import: {
    summary: "copy MCP servers from a .mcp.json or Claude Desktop config into gateway.json",
    load: () => import("./import_command.ts").then((m) => m.importCommand),
  },
  service: {
    summary: "install|uninstall|status a user service (systemd/launchd)",
    load: () => import("./service_command.ts").then((m) => m.serviceCommand),
  },
};

/**
 * Every verb, in the order `gateway --help` lists them. Each handler answers `--help` here, in
 * one place: its `parseCommandArgs` throws {@linkcode HelpRequested} and the usage is printed.
 */
export const COMMANDS: Readonly<Record<string, Command>> = Object.fromEntries(
  Object.entries(VERBS).map(([name, verb]) => [name, {
    summary: verb.summary,
    load: async () => answeringHelp(await verb.load()),
  }]),
);

/** Wraps `handler` so `--help` prints the command's usage on stdout and exits 0. */
function answeringHelp(handler: CommandHandler): CommandHandler {
  return async (args, context) => {
    try {
      return await handler(args, context);
    } catch (error) {
      if (!(error instanceof HelpRequested)) throw error;
      context.output.out(`${error.usage}\n`);
      return 0;
    }
  };
}

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
