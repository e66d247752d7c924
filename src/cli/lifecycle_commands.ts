/**
 * `gateway start`, `stop`, `status`: the background server's life, found through
 * `server.json` in the data dir and the lock the server holds. Stop asks the server itself on
 * its socket; only a server that does not answer there gets a signal, sent to the process the
 * kernel says holds the data dir's lock — never to a pid read from a file, which may since be
 * anyone's.
 * @module
 */

import { join } from "node:path";
import { findServer } from "../client/server_connection.ts";
import { endpointOf, GatewayHttpClient } from "../client/gateway_http_client.ts";
import { rootsDataDir, userDataDir } from "../config/gateway_paths.ts";
import {
  lockHolderPid,
  readServerState,
  serverLockFree,
  type ServerState,
} from "../config/server_state.ts";
import { messageOf } from "../protocol/message_of.ts";
import type { CliContext } from "./cli_context.ts";
import { parseCommandArgs } from "./command_args.ts";
import { countOf } from "../protocol/count_of.ts";

/** Usage text of `gateway start`. */
export const START_USAGE = `Usage: gateway start [--root DIR]

Starts the gateway server in the background (logs: DATA_DIR/server.log) and waits until it answers.`;
/** Usage text of `gateway stop`. */
export const STOP_USAGE = `Usage: gateway stop [--all]

Stops the background server of this root's data dir (SIGTERM, waiting up to 10 s).
--all stops every gateway server of this user (every root).`;
/** Usage text of `gateway status`. */
export const STATUS_USAGE = `Usage: gateway status [--all] [--json]

Says whether a server runs for this root (exit 3 when none does), and the state of its
namespaces. --all lists every running gateway server of this user, with its root.`;

/**
 * Every live gateway server of this user: one per data dir under USER_DATA_DIR/roots, plus
 * the user data dir itself and a `$GATEWAY_DATA_DIR` that pins another one.
 */
export async function runningServers(context: CliContext): Promise<ServerState[]> {
  const dirs = new Set<string>();
  const user = userDataDir({ env: context.env, os: Deno.build.os });
  dirs.add(user);
  if (context.env.GATEWAY_DATA_DIR) dirs.add(context.dataDir);
  try {
    for await (const entry of Deno.readDir(rootsDataDir(user))) {
      if (entry.isDirectory) dirs.add(join(rootsDataDir(user), entry.name));
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  const found: ServerState[] = [];
  for (const dir of [...dirs].sort()) {
    const state = await readServerState(dir);
    if (state && !state.stale) found.push(state.state);
  }
  return found;
}

/**
 * Asks the server of `dataDir` to stop (`POST /stop` on its socket), or, when it does not
 * answer there, sends SIGTERM to the lock's holder; then waits until it has let go of the lock.
 */
async function stopServerIn(
  dataDir: string,
  context: CliContext,
): Promise<"stopped" | "none" | "timeout"> {
  const found = await readServerState(dataDir);
  if (!found || found.stale) return "none";
  const pid = found.state.pid;
  const client = new GatewayHttpClient(endpointOf(found.state, dataDir));
  try {
    const answer = await client.send("POST", "/stop", { signal: AbortSignal.timeout(5000) });
    if (answer.status !== 200) throw new Error(`it answered HTTP ${answer.status}`);
  } catch (error) {
    const holder = lockHolderPid(dataDir);
    if (holder === null) {
      context.output.err(
        `error[Server]: the gateway server of ${dataDir} did not take the stop request ` +
          `(${messageOf(error)}), and which process holds its lock cannot be told here\n`,
      );
      return "timeout";
    }
    context.output.err(
      `warning: the gateway server did not take the stop request (${messageOf(error)}): ` +
        `sending SIGTERM to pid ${holder}, which holds its lock\n`,
    );
    Deno.kill(holder, "SIGTERM");
  } finally {
    await client.close();
  }
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const now = await readServerState(dataDir);
    // Gone once it has let go of the data dir too, so a `gateway start` may follow at once;
    // or replaced already (a supervisor restarted it), when the lock is the new server's.
    const replaced = now !== null && !now.stale && now.state.pid !== pid;
    if (replaced || ((!now || now.stale) && serverLockFree(dataDir))) {
      context.output.out(`stopped gateway server (pid ${pid}, root ${found.state.root})\n`);
      return "stopped";
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  context.output.err(`error[Timeout]: gateway server (pid ${pid}) did not stop within 10 s\n`);
  return "timeout";
}

/** Runs `gateway start`. */
export async function startCommand(args: string[], context: CliContext): Promise<number> {
  parseCommandArgs(args, {}, START_USAGE); // no flags but --help; refuses any other
  const connection = await context.ensureServer();
  context.output.out(
    `${
      connection.started ? "started" : "already running"
    }: pid ${connection.state.pid}, port ${connection.state.port}, root ${connection.state.root}\n`,
  );
  return 0;
}

/** Runs `gateway stop`. */
export async function stopCommand(args: string[], context: CliContext): Promise<number> {
  const parsed = parseCommandArgs(args, { booleans: ["all"] }, STOP_USAGE);
  if (parsed.flags.all) {
    const servers = await runningServers(context);
    if (servers.length === 0) context.output.out("no gateway server is running\n");
    let failed = false;
    for (const state of servers) {
      if (await stopServerIn(state.dataDir, context) === "timeout") failed = true;
    }
    return failed ? 1 : 0;
  }
  const outcome = await stopServerIn(context.dataDir, context);
  if (outcome === "none") {
    context.output.out(`no gateway server is running for root ${context.root.dir}\n`);
  }
  return outcome === "timeout" ? 1 : 0;
}

/** Runs `gateway status`. */
export async function statusCommand(args: string[], context: CliContext): Promise<number> {
  const parsed = parseCommandArgs(args, { booleans: ["json", "all"] }, STATUS_USAGE);
  if (parsed.flags.all) {
    const servers = await runningServers(context);
    if (parsed.flags.json) context.output.out(`${JSON.stringify(servers, null, 2)}\n`);
    else if (servers.length === 0) context.output.out("no gateway server is running\n");
    else {
      for (const state of servers) {
        context.output.out(
          `${state.root}: pid ${state.pid}, port ${state.port}, data dir ${state.dataDir}\n`,
        );
      }
    }
    return servers.length === 0 ? 3 : 0;
  }
  context.warnAboutOtherServers();
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
  const client = new GatewayHttpClient(endpointOf(state, state.dataDir));
  let answer;
  try {
    answer = await client.send("GET", "/health");
  } finally {
    await client.close();
  }
  const health = answer.body as {
    namespaces: Array<{ name: string; status: string; tools: number; reason?: string }>;
    configError?: string;
    configWarnings?: string[];
  };
  if (parsed.flags.json) {
    context.output.out(
      `${
        JSON.stringify(
          {
            running: true,
            ...state,
            namespaces: health.namespaces,
            configWarnings: health.configWarnings ?? [],
            ...(health.configError ? { configError: health.configError } : {}),
          },
          null,
          2,
        )
      }\n`,
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
      `  ${ns.name}: ${ns.status}${ns.reason ? ` (${ns.reason})` : ""}, ${
        countOf(ns.tools, "tool")
      }\n`,
    );
  }
  for (const warning of health.configWarnings ?? []) context.output.err(`warning: ${warning}\n`);
  if (health.configError) {
    context.output.err(
      `error[Config]: the last config edit did not load, the previous config is in force: ${health.configError}\n`,
    );
  }
  return 0;
}
