/**
 * `gateway start`, `stop`, `status`: the background server's life, found through
 * `server.json` in the data dir. Stop signals only the pid that file names (never by name).
 * @module
 */

import { findServer } from "../client/server_connection.ts";
import { readServerState } from "../config/server_state.ts";
import type { CliContext } from "./cli_context.ts";
import { parseCommandArgs } from "./command_args.ts";

/** Usage text of `gateway start`. */
export const START_USAGE = `Usage: gateway start [--root DIR]

Starts the gateway server in the background (logs: DATA_DIR/server.log) and waits until it answers.`;
/** Usage text of `gateway stop`. */
export const STOP_USAGE = `Usage: gateway stop

Stops the background server of this data dir (SIGTERM, waiting up to 10 s).`;
/** Usage text of `gateway status`. */
export const STATUS_USAGE = `Usage: gateway status [--json]

Says whether a server runs for this data dir and root, and the state of its namespaces.`;

/** Runs `gateway start`. */
export async function startCommand(args: string[], context: CliContext): Promise<number> {
  const parsed = parseCommandArgs(args, {}, START_USAGE);
  if (parsed.flags.help) {
    context.output.out(`${START_USAGE}\n`);
    return 0;
  }
  const connection = await context.connect();
  await connection.client.close();
  context.output.out(
    `${
      connection.started ? "started" : "already running"
    }: pid ${connection.state.pid}, port ${connection.state.port}, root ${connection.state.root}\n`,
  );
  return 0;
}

/** Runs `gateway stop`. */
export async function stopCommand(args: string[], context: CliContext): Promise<number> {
  const parsed = parseCommandArgs(args, {}, STOP_USAGE);
  if (parsed.flags.help) {
    context.output.out(`${STOP_USAGE}\n`);
    return 0;
  }
  const found = await readServerState(context.dataDir);
  if (!found || found.stale) {
    context.output.out("no gateway server is running for this data dir\n");
    return 0;
  }
  const pid = found.state.pid;
  Deno.kill(pid, "SIGTERM");
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const now = await readServerState(context.dataDir);
    if (!now || now.stale || now.state.pid !== pid) {
      context.output.out(`stopped gateway server (pid ${pid})\n`);
      return 0;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  context.output.err(`error[Timeout]: gateway server (pid ${pid}) did not stop within 10 s\n`);
  return 1;
}

/** Runs `gateway status`. */
export async function statusCommand(args: string[], context: CliContext): Promise<number> {
  const parsed = parseCommandArgs(args, { booleans: ["json"] }, STATUS_USAGE);
  if (parsed.flags.help) {
    context.output.out(`${STATUS_USAGE}\n`);
    return 0;
  }
  const state = await findServer(context.dataDir);
  const root = context.root;
  if (!state) {
    if (parsed.flags.json) {
      context.output.out(
        `${JSON.stringify({ running: false, root: root.dir, dataDir: context.dataDir })}\n`,
      );
    } else {
      context.output.out(
        `not running (root ${root.dir} [${root.source}], data dir ${context.dataDir})\n`,
      );
    }
    return 3;
  }
  const health = await (await fetch(`http://127.0.0.1:${state.port}/health`)).json() as {
    namespaces: Array<{ name: string; status: string; tools: number; reason?: string }>;
  };
  if (parsed.flags.json) {
    context.output.out(
      `${JSON.stringify({ running: true, ...state, namespaces: health.namespaces }, null, 2)}\n`,
    );
    return 0;
  }
  context.output.out(
    `running: pid ${state.pid}, port ${state.port}, version ${state.version}\nroot: ${state.root}${
      state.root === root.dir ? "" : ` (this directory resolves to ${root.dir})`
    }\ndata dir: ${state.dataDir}\n`,
  );
  for (const ns of health.namespaces) {
    context.output.out(
      `  ${ns.name}: ${ns.status}${ns.reason ? ` (${ns.reason})` : ""}, ${ns.tools} tools\n`,
    );
  }
  return 0;
}
