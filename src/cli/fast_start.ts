/**
 * The fast path of `gateway start` when no server has run for the root (no `server.json`): the
 * installed command starts the server itself instead of handing the verb to the full CLI in a
 * child `deno run`, which costs tens of milliseconds before the server is even spawned.
 * Anything else — flags, a `server.json` (running, stale or another root's), a server for the
 * root in another environment's data dir, a terminal, a root to refuse — returns null before
 * anything is started, and the full CLI runs.
 * @module
 */

import { resolveDataDir, resolveRoot } from "../config/gateway_paths.ts";
import { serverStatePath } from "../config/server_state.ts";
import { registeredServers } from "../config/server_registry.ts";
import { ConfigError } from "../config/config_error.ts";
import { startBackgroundServer } from "../client/background_server.ts";
import { NoServerError } from "../client/no_server_error.ts";
import type { CliOutput } from "./cli_context.ts";
import { printError } from "./print.ts";

/** What `gateway start` reads of its invocation. */
export interface FastStartInput {
  argv: readonly string[];
  env: Record<string, string | undefined>;
  cwd: string;
  output: CliOutput;
}

/** The `--root` of `[--root DIR] start`, "" without one; null for any other invocation. */
export function parseSimpleStart(argv: readonly string[]): string | null {
  if (argv.length === 1 && argv[0] === "start") return "";
  if (argv.length === 2 && argv[1] === "start" && argv[0]!.startsWith("--root=")) {
    return argv[0]!.slice("--root=".length) || null;
  }
  if (argv.length === 3 && argv[0] === "--root" && argv[2] === "start") return argv[1] || null;
  return null;
}

/**
 * Runs `gateway start` for a root with no `server.json` and returns its exit code, or null when
 * the full CLI must handle the invocation (nothing has been started or printed then).
 */
export async function fastStart(input: FastStartInput): Promise<number | null> {
  const { output } = input;
  if (output.isTty) return null; // progress lines: the full path
  const rootFlag = parseSimpleStart(input.argv);
  if (rootFlag === null) return null;
  let paths: { rootDir: string; dataDir: string };
  try {
    const root = resolveRoot({ flag: rootFlag || undefined, env: input.env, cwd: input.cwd });
    paths = {
      rootDir: root.dir,
      dataDir: resolveDataDir({
        env: input.env,
        os: Deno.build.os,
        cwd: input.cwd,
        rootDir: root.dir,
      }),
    };
  } catch {
    return null; // the full path says why
  }
  // A server another environment (an MCP host's) started for this root is this root's
  // server: the full path finds it in the registry instead of starting a second one.
  if (!input.env.GATEWAY_DATA_DIR) {
    const running = registeredServers(paths.rootDir, { env: input.env, except: paths.dataDir });
    if (running.length > 0) return null;
  }
  try {
    Deno.statSync(serverStatePath(paths.dataDir));
    return null; // a server ran here: already running, stale or another root's — the full path
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) return null;
  }
  try {
    const state = await startBackgroundServer({ rootFlag: paths.rootDir, dataDir: paths.dataDir });
    output.out(`started: pid ${state.pid}, port ${state.port}, root ${state.root}\n`);
    return 0;
  } catch (error) {
    // As the full CLI reports them (cli_main.ts `report`).
    if (error instanceof ConfigError) {
      printError(output, "Config", error.message);
      return 2;
    }
    if (error instanceof NoServerError) {
      printError(output, "Server", error.message);
      return 1;
    }
    throw error;
  }
}
