/**
 * The full CLI: global flags, then the command, and how an error escaping a command becomes
 * output and an exit code. `main.ts` loads it only when the `gateway exec` fast path
 * does not handle the invocation, so that path loads none of it.
 * @module
 */

import type { CliContext } from "./cli_context.ts";
import { UsageError } from "./usage_error.ts";
import { printError } from "./print.ts";
import { ConfigError } from "../config/config_error.ts";
import { NoServerError } from "../client/no_server_error.ts";
import { lazyImport } from "./lazy_import.ts";
import { RpcError } from "../protocol/json_rpc.ts";
import { GATEWAY_VERSION } from "../protocol/gateway_version.ts";
import { ServerStartError } from "../server/server_start_error.ts";
import { messageOf } from "../protocol/message_of.ts";
import { nearestNames } from "../protocol/names.ts";
import { unknownOption } from "./command_args.ts";

/** Runs the CLI with `argv` and returns the exit code. */
export async function runCli(argv: string[], context: CliContext): Promise<number> {
  const { COMMANDS, mainUsage } = await lazyImport<typeof import("./commands.ts")>(
    "./commands.ts",
    import.meta.url,
  );
  const rest: string[] = [];
  let commandName: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (commandName === undefined || !rest.includes("--")) {
      if (arg === "--root") {
        const value = argv[++i];
        if (value === undefined) throw new UsageError("--root needs a directory", mainUsage());
        context.rootFlag = value;
        continue;
      }
      if (arg.startsWith("--root=")) {
        context.rootFlag = arg.slice("--root=".length);
        continue;
      }
      if (arg === "--no-autostart") {
        context.autostart = false;
        continue;
      }
    }
    if (commandName === undefined && !arg.startsWith("-")) commandName = arg;
    else rest.push(arg);
  }
  if (commandName === undefined) {
    if (rest.includes("--version")) {
      context.output.out(`gateway ${GATEWAY_VERSION} (deno ${Deno.version.deno})\n`);
      return 0;
    }
    if (rest.includes("--llm-help")) return await (await COMMANDS.guide!.load())([], context);
    if (rest.length === 0 || rest.includes("--help") || rest.includes("-h")) {
      context.output.out(`${mainUsage()}\n`);
      return rest.length === 0 ? 2 : 0;
    }
    throw new UsageError(
      unknownOption(rest[0]!, ["--root", "--no-autostart", "--version", "--llm-help", "--help"]),
      mainUsage(),
    );
  }
  if (commandName === "help") {
    context.output.out(`${mainUsage()}\n`);
    return 0;
  }
  const command = COMMANDS[commandName];
  if (command) return await (await command.load())(rest, context);
  if (commandName.endsWith(".ts")) {
    return await (await COMMANDS.run!.load())([commandName, ...rest], context);
  }
  const near = nearestNames(commandName, [...Object.keys(COMMANDS), "help"], { limit: 2 });
  throw new UsageError(
    `Unknown command "${commandName}"${
      near.length > 0 ? `: did you mean ${near.map((n) => `"${n}"`).join(" or ")}?` : ""
    }`,
    mainUsage(),
  );
}

/**
 * The command whose `--help` shows `usage`: `gateway exec` for "Usage: gateway exec …",
 * `gateway` for the main usage; null for none.
 */
function helpCommandOf(usage: string): string | null {
  if (usage === "") return null;
  return /^Usage: (gateway(?: [a-z]+)?)/.exec(usage)?.[1] ?? "gateway";
}

/** Maps an error escaping a command to output and an exit code. */
export function report(error: unknown, context: CliContext): number {
  if (error instanceof UsageError) {
    // One line: the mistake, the nearest right spelling, and where the usage is.
    const help = helpCommandOf(error.usage);
    printError(
      context.output,
      "Usage",
      help ? `${error.message} (see ${help} --help)` : error.message,
    );
    return 2;
  }
  if (error instanceof ConfigError) {
    printError(context.output, "Config", error.message);
    return 2;
  }
  if (error instanceof RpcError) {
    printError(context.output, String(error.data?.kind ?? "Gateway"), error.message);
    return error.code === -32602 || error.code === -32601 ? 2 : 1;
  }
  if (error instanceof NoServerError || error instanceof ServerStartError) {
    printError(context.output, "Server", error.message);
    return 1;
  }
  printError(context.output, "Internal", messageOf(error));
  return 1;
}
