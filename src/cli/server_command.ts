/**
 * `gateway server`: run the server in the foreground until SIGTERM/SIGINT.
 * @module
 */

import { dirname, resolve } from "node:path";
import { loadRootConfig } from "../config/config_loader.ts";
import { createLogger, parseLogLevel } from "../logger.ts";
import { startGatewayServer } from "../server/gateway_server.ts";
import type { CliContext } from "./cli_context.ts";
import { parseCommandArgs } from "./command_args.ts";
import { UsageError } from "./usage_error.ts";

/** Usage text of `gateway server`. */
export const SERVER_USAGE = `Usage: gateway server [--root DIR] [--log-file FILE] [--verbose]

Runs the gateway in the foreground (loopback only, token required). Logs are JSON lines on
stderr at warn level; --verbose (or GATEWAY_LOG=info|debug) shows more. $GATEWAY_PORT
overrides the configured port (0 = any free port).`;

/** Runs `gateway server`. */
export async function serverCommand(args: string[], context: CliContext): Promise<number> {
  const parsed = parseCommandArgs(
    args,
    { booleans: ["verbose"], strings: ["log-file"] },
    SERVER_USAGE,
  );
  const logFile = typeof parsed.flags["log-file"] === "string" ? parsed.flags["log-file"] : null;
  // A service's first start may come before anything made the data dir.
  if (logFile) {
    await Deno.mkdir(dirname(resolve(context.cwd, logFile)), { recursive: true, mode: 0o700 });
  }
  const file = logFile
    ? await Deno.open(resolve(context.cwd, logFile), { append: true, create: true, mode: 0o600 })
    : null;
  const encoder = new TextEncoder();
  try {
    return await serve(context, {
      verbose: parsed.flags.verbose === true,
      ...(file ? { write: (line: string) => file.writeSync(encoder.encode(line + "\n")) } : {}),
    });
  } catch (error) {
    // A background server has no terminal: its start-up failure goes to the log, where the
    // CLI that started it reads it.
    const message = `start-up failed: ${(error as Error).message}`;
    file?.writeSync(encoder.encode(
      JSON.stringify({ time: new Date().toISOString(), level: "error", message }) + "\n",
    ));
    throw error;
  } finally {
    file?.close();
  }
}

async function serve(
  context: CliContext,
  options: { verbose: boolean; write?: (line: string) => void },
): Promise<number> {
  const loaded = await loadRootConfig(context.root, context.env);
  if (context.env.GATEWAY_PORT !== undefined) {
    const port = Number(context.env.GATEWAY_PORT);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      throw new UsageError(
        `$GATEWAY_PORT must be a port number (0 = any), not "${context.env.GATEWAY_PORT}"`,
        SERVER_USAGE,
      );
    }
    loaded.config.port = port;
  }
  let secrets: readonly string[] = loaded.secrets;
  const log = createLogger({
    level: options.verbose ? "info" : parseLogLevel(context.env.GATEWAY_LOG),
    secrets: () => secrets,
    ...(options.write ? { write: options.write } : {}),
  });
  for (const warning of loaded.warnings) log.warn(warning);
  const server = await startGatewayServer({
    paths: { root: context.root, dataDir: context.dataDir },
    loaded,
    log,
    handleSignals: true,
  });
  secrets = server.core.secrets();
  if (context.output.isTty) {
    context.output.err(
      `gateway listening on http://127.0.0.1:${server.port} (root ${context.root.dir})\n`,
    );
  }
  await server.finished;
  return 0;
}
