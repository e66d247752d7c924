/**
 * The command table: every CLI verb with its one-line summary and handler. `main.ts` parses
 * global flags and dispatches here; `gateway help` is generated from this table.
 * @module
 */

import type { CliContext } from "./cli_context.ts";
import { HelpRequested } from "./help_requested.ts";
import { lazyImport } from "./lazy_import.ts";

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
    load: () =>
      lazyImport<typeof import("./exec_command.ts")>("./exec_command.ts", import.meta.url).then((
        m,
      ) => m.execCommand),
  },
  run: {
    summary: "run a named script or a .ts file with arguments",
    load: () =>
      lazyImport<typeof import("./run_command.ts")>("./run_command.ts", import.meta.url).then((m) =>
        m.runCommand
      ),
  },
  tools: {
    summary: "list namespaces; tools NS; tools types NS[,NS]",
    load: () =>
      lazyImport<typeof import("./tools_command.ts")>("./tools_command.ts", import.meta.url).then((
        m,
      ) => m.toolsCommand),
  },
  catalog: {
    summary: "every namespace and as many signatures as a token budget allows",
    load: () =>
      lazyImport<typeof import("./discovery_commands.ts")>(
        "./discovery_commands.ts",
        import.meta.url,
      ).then((m) => m.catalogCommand),
  },
  search: {
    summary: "find tools and scripts",
    load: () =>
      lazyImport<typeof import("./discovery_commands.ts")>(
        "./discovery_commands.ts",
        import.meta.url,
      ).then((m) => m.searchCommand),
  },
  describe: {
    summary: "the full declaration of a tool or script",
    load: () =>
      lazyImport<typeof import("./discovery_commands.ts")>(
        "./discovery_commands.ts",
        import.meta.url,
      ).then((m) => m.describeCommand),
  },
  scripts: {
    summary: "list named scripts; scripts init NAME",
    load: () =>
      lazyImport<typeof import("./scripts_command.ts")>("./scripts_command.ts", import.meta.url)
        .then((m) => m.scriptsCommand),
  },
  history: {
    summary: "recent runs; history show|rerun|save ID",
    load: () =>
      lazyImport<typeof import("./history_command.ts")>("./history_command.ts", import.meta.url)
        .then((m) => m.historyCommand),
  },
  workflow: {
    summary: "step through a YAML workflow: start|step|status|reset|abort|list|log",
    load: () =>
      lazyImport<typeof import("./workflow_command.ts")>("./workflow_command.ts", import.meta.url)
        .then((m) => m.workflowCommand),
  },
  auth: {
    summary: "OAuth for remote MCP servers: auth login|status|logout NS",
    load: () =>
      lazyImport<typeof import("./auth_command.ts")>("./auth_command.ts", import.meta.url).then((
        m,
      ) => m.authCommand),
  },
  approve: {
    summary: "allow (or --deny) tool calls an ask policy holds for a run",
    load: () =>
      lazyImport<typeof import("./approve_command.ts")>("./approve_command.ts", import.meta.url)
        .then((m) => m.approveCommand),
  },
  approvals: {
    summary: "list tool calls waiting for approval",
    load: () =>
      lazyImport<typeof import("./approve_command.ts")>("./approve_command.ts", import.meta.url)
        .then((m) => m.approvalsCommand),
  },
  wait: {
    summary: "wait for a yielded run",
    load: () =>
      lazyImport<typeof import("./run_control_commands.ts")>(
        "./run_control_commands.ts",
        import.meta.url,
      ).then((m) => m.waitCommand),
  },
  cancel: {
    summary: "stop a run in flight",
    load: () =>
      lazyImport<typeof import("./run_control_commands.ts")>(
        "./run_control_commands.ts",
        import.meta.url,
      ).then((m) => m.cancelCommand),
  },
  guide: {
    summary: "the guide an agent needs (same as --llm-help)",
    load: () =>
      lazyImport<typeof import("./discovery_commands.ts")>(
        "./discovery_commands.ts",
        import.meta.url,
      ).then((m) => m.guideCommand),
  },
  mcp: {
    summary: "serve the gateway as an MCP server on stdio; mcp --print-config: a host's entries",
    load: () =>
      lazyImport<typeof import("./mcp_command.ts")>("./mcp_command.ts", import.meta.url).then((m) =>
        m.mcpCommand
      ),
  },
  server: {
    summary: "run the server in the foreground",
    load: () =>
      lazyImport<typeof import("./server_command.ts")>("./server_command.ts", import.meta.url).then(
        (m) => m.serverCommand,
      ),
  },
  start: {
    summary: "start the server in the background",
    load: () =>
      lazyImport<typeof import("./lifecycle_commands.ts")>(
        "./lifecycle_commands.ts",
        import.meta.url,
      ).then((m) => m.startCommand),
  },
  stop: {
    summary: "stop the background server",
    load: () =>
      lazyImport<typeof import("./lifecycle_commands.ts")>(
        "./lifecycle_commands.ts",
        import.meta.url,
      ).then((m) => m.stopCommand),
  },
  status: {
    summary: "whether a server runs for this data dir and root",
    load: () =>
      lazyImport<typeof import("./lifecycle_commands.ts")>(
        "./lifecycle_commands.ts",
        import.meta.url,
      ).then((m) => m.statusCommand),
  },
  init: {
    summary: "create .gateway/ with sample tools, scripts and workflows",
    load: () =>
      lazyImport<typeof import("./init_command.ts")>("./init_command.ts", import.meta.url).then((
        m,
      ) => m.initCommand),
  },
  ui: {
    summary: "a one-use sign-in address of the dashboard (opened on a desktop)",
    load: () =>
      lazyImport<typeof import("./ui_command.ts")>("./ui_command.ts", import.meta.url).then((m) =>
        m.uiCommand
      ),
  },
  import: {
    summary: "copy MCP servers from a .mcp.json or Claude Desktop config into gateway.json",
    load: () =>
      lazyImport<typeof import("./import_command.ts")>("./import_command.ts", import.meta.url).then(
        (m) => m.importCommand,
      ),
  },
  service: {
    summary: "install|uninstall|status a user service (systemd/launchd)",
    load: () =>
      lazyImport<typeof import("./service_command.ts")>("./service_command.ts", import.meta.url)
        .then((m) => m.serviceCommand),
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
