/**
 * `/health` while the server is still loading its parts: the listener is up first, so a
 * client (the CLI after autostart, a service manager) sees the gateway up at once, with every
 * configured namespace "starting". Every other request waits for the parts (gateway_server.ts).
 * Small on purpose: nothing heavy loads before the listener.
 * @module
 */

import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { LoadedConfig } from "../config/config_loader.ts";
import { toIdentifier } from "../protocol/names.ts";
import { isToolModuleFileName } from "../namespaces/local/tool_directory_watcher.ts";
import type { NamespaceSummary } from "../protocol/wire_views.ts";
import { checkHostAndOrigin, checkToken } from "./request_guard.ts";

/** What the boot answer says about the gateway. */
export interface BootHealthOptions {
  token: string;
  /** Asked on the CLI's unix socket: no Host, Origin or token to check there. */
  trusted: boolean;
  port: () => number;
  version: string;
  rootDir: string;
  loaded: LoadedConfig;
}

/** The tool modules under `ROOT/tools` (names), or none when the directory is missing. */
function toolModuleNames(rootDir: string): string[] {
  try {
    return readdirSync(join(rootDir, "tools"), { withFileTypes: true })
      .filter((entry) => entry.isFile() && isToolModuleFileName(entry.name))
      .map((entry) => entry.name.slice(0, -".ts".length));
  } catch {
    return [];
  }
}

/** The namespaces the root and config will make, each "starting". */
export function startingNamespaces(rootDir: string, loaded: LoadedConfig): NamespaceSummary[] {
  const { config } = loaded;
  const starting = (name: string, kind: string): NamespaceSummary => ({
    name,
    identifier: toIdentifier(name),
    kind,
    status: "starting",
    tools: 0,
  });
  const modules = toolModuleNames(rootDir);
  const servers = Object.entries(config.mcpServers).filter(([, s]) => !s.disabled);
  const clash = new Set(servers.map(([name]) => name).filter((name) => modules.includes(name)));
  return [
    ...modules.filter((name) => !clash.has(name) && config.tools[name]?.disabled !== true)
      .map((name) => starting(name, "local")),
    ...servers.filter(([name]) => !clash.has(name)).map(([name]) => starting(name, "mcp")),
    ...Object.entries(config.apis).filter(([name, api]) => !api.disabled && !modules.includes(name))
      .map(([name, api]) => starting(name, api.graphql === undefined ? "openapi" : "graphql")),
  ].sort((a, b) => a.name.localeCompare(b.name));
}

/** Answers `/health` during start-up, with the same guard and shape as the full routes. */
export function bootHealth(request: Request, options: BootHealthOptions): Response {
  const json = (value: unknown, status = 200) =>
    new Response(JSON.stringify(value), {
      status,
      headers: { "content-type": "application/json; charset=UTF-8" },
    });
  const refusal = options.trusted ? null : checkHostAndOrigin(request, { port: options.port() });
  if (refusal) return json({ error: { message: refusal.message } }, refusal.status);
  // `starting` tells a client that started this server to keep waiting: the parts (history
  // store, namespaces) may still fail, and then the process exits with the reason in its log.
  if (!options.trusted && checkToken(request, { token: options.token, allowQuery: false })) {
    return json({ ok: true, starting: true });
  }
  return json({
    ok: true,
    starting: true,
    version: options.version,
    pid: Deno.pid,
    root: options.rootDir,
    namespaces: startingNamespaces(options.rootDir, options.loaded),
    configWarnings: options.loaded.warnings,
  });
}
