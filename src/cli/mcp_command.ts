/**
 * `gateway mcp`: the gateway as an MCP server on stdio, for hosts that launch MCP servers as
 * commands (Claude Desktop, editors). It forwards to the running gateway (started if needed).
 * @module
 */

import { heldStateCodec } from "../mcp_server/gateway_mcp_server.ts";
import { serveMcpOnStdio } from "../mcp_server/mcp_stdio.ts";
import { STREAMING_METHODS } from "../mcp_server/gateway_call.ts";
import { ExposureError, SurfaceCatalog } from "../mcp_server/surface_catalog.ts";
import { GATEWAY_VERSION } from "../protocol/gateway_version.ts";
import type { CliContext } from "./cli_context.ts";
import { parseCommandArgs } from "./command_args.ts";
import { UsageError } from "./usage_error.ts";
import type { GatewayCall } from "../mcp_server/gateway_call.ts";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadRootConfig } from "../config/config_loader.ts";
import { resolveDataDir, rootKey } from "../config/gateway_paths.ts";
import { ensureToken } from "../config/token_file.ts";
import { mcpHostConfigText, type McpHostSetup } from "./mcp_host_config.ts";

/** Usage text of `gateway mcp`. */
export const MCP_USAGE = `Usage: gateway mcp [--expose code|tools|NAMESPACE] [--root DIR]
       gateway mcp --print-config [--root DIR]

Serves the gateway as an MCP server on stdin/stdout (protocol 2025 and 2026-07-28), with
resources (types, guide, upstream resources), prompts (upstream prompts, workflows),
completions, and long runs as tasks.
  --expose code   (default) code-mode tools: exec, run_script, wait, cancel, search, describe,
                  types, catalog, history, workflow_start, workflow_step, workflow_status, invoke
  --expose tools  every upstream tool directly as <namespace>__<tool>, with policy and limits
  --expose NS     one namespace as itself: its own tool, resource and prompt names, with
                  policy, limits and history
  --print-config  print the entries that add this root's gateway to Claude Code, Claude
                  Desktop and Cursor, over stdio and HTTP (with its port and header)`;

/** Runs `gateway mcp`. */
export async function mcpCommand(args: string[], context: CliContext): Promise<number> {
  const parsed = parseCommandArgs(
    args,
    { strings: ["expose"], booleans: ["print-config"] },
    MCP_USAGE,
  );
  if (parsed.flags["print-config"]) {
    if (parsed.flags.expose !== undefined) {
      throw new UsageError(
        "--print-config prints the entries for the default --expose code",
        MCP_USAGE,
      );
    }
    context.output.out(mcpHostConfigText(await hostSetup(context)));
    return 0;
  }
  const expose = String(parsed.flags.expose ?? "code");
  const connection = await context.connect();
  const call: GatewayCall = async (method, params, sink) => {
    if (!sink || !STREAMING_METHODS.has(method)) {
      return await connection.client.request(method, { ...params });
    }
    // A tool call gets its own connection: the gateway sends a run's notifications to the
    // connection that started it (so calls never see each other's), and closing it when the
    // MCP client cancels the request cancels the run.
    const own = await context.connect();
    const stop = own.client.onNotification((n) => sink.notify(n.method, n.params));
    const cancel = () => own.client.close();
    sink.signal?.addEventListener("abort", cancel, { once: true });
    try {
      return await own.client.request(method, { ...params });
    } finally {
      sink.signal?.removeEventListener("abort", cancel);
      stop();
      await own.client.close();
    }
  };
  // One client per process: the state of a run waiting for it never needs another instance.
  const codec = await heldStateCodec(`${crypto.randomUUID()}${crypto.randomUUID()}`);
  let surface;
  try {
    surface = await new SurfaceCatalog(call, codec).get(expose);
  } catch (error) {
    await connection.client.close();
    if (error instanceof ExposureError) throw new UsageError(error.message, MCP_USAGE);
    throw error;
  }
  await connection.client.request("events.subscribe");
  await serveMcpOnStdio({
    call,
    version: GATEWAY_VERSION,
    surface,
    codec,
    onError: (message) => context.output.err(`warning: ${message}\n`),
    events: (listener) =>
      connection.client.onNotification((n) => {
        if (n.method.startsWith("event.")) listener(n.method, n.params);
      }),
  });
  await connection.client.close();
  return 0;
}

/** What `--print-config` needs: paths, the root's port, the data dir's token. */
async function hostSetup(context: CliContext): Promise<McpHostSetup> {
  const root = context.root;
  const loaded = await loadRootConfig(root, { ...context.env });
  const home = context.env.HOME ?? context.env.USERPROFILE ?? "~";
  const project = /[\\/]\.(gateway|lootbox)$/.test(root.dir) ? dirname(root.dir) : root.dir;
  return {
    root: root.dir,
    key: rootKey(root.dir),
    project,
    deno: Deno.execPath(),
    bundle: fileURLToPath(new URL("./fast_main.bundle.js", import.meta.url)),
    env: {
      ...(context.env.DENO_DIR ? { DENO_DIR: context.env.DENO_DIR } : {}),
      ...(context.dataDir !== bareDataDir(context, home)
        ? { GATEWAY_DATA_DIR: context.dataDir }
        : {}),
    },
    configuredPort: loaded.config.port,
    configFile: root.configFile ?? join(root.dir, "gateway.json"),
    // The token of the data dir this root's server uses (made now if it never ran).
    token: await ensureToken(context.dataDir),
    home,
    os: Deno.build.os,
  };
}

/** The data dir an environment holding only `$HOME` derives for this root. */
function bareDataDir(context: CliContext, home: string): string {
  return resolveDataDir({
    env: { HOME: home },
    os: Deno.build.os,
    cwd: context.cwd,
    rootDir: context.root.dir,
  });
}
