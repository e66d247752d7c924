/**
 * Reads `gateway.json` (JSON with comments), expands `${env:NAME}`, and validates it with the
 * zod schema, turning every problem into one message naming the file, line and key path.
 * @module
 */

import { gatewayConfigSchema, mcpServerSchema } from "./gateway_config.ts";
import { ConfigError } from "./config_error.ts";
import { configFromValue, expandEntries, type LoadedConfig } from "./config_value.ts";
import { readEnvFile } from "./env_file.ts";
import { mcpJsonFileOf, type ResolvedRoot } from "./gateway_paths.ts";
import { parseForeignServers } from "./mcp_json.ts";

export { ConfigError };
export type { LoadedConfig };

/** Loads the config file of a root, or the defaults when there is none. */
export async function loadConfig(
  file: string | null,
  env: Record<string, string | undefined>,
): Promise<LoadedConfig> {
  if (file === null) {
    return {
      config: gatewayConfigSchema.parse({}),
      file: null,
      secrets: [],
      warnings: [],
      blocked: [],
    };
  }
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (error) {
    throw new ConfigError(`Cannot read config "${file}": ${(error as Error).message}`, {
      cause: error,
    });
  }
  // Plain JSON that validates needs no JSONC parser: jsonc-parser is a CommonJS package, and
  // its first import loads Deno's Node module loader, a cost on the server's start path.
  // Comments, trailing commas and every error take the JSONC path, whose messages
  // name the line.
  const plain = plainConfig(text, { file, env });
  if (plain !== null) return plain;
  const { parseConfigText } = await import("./config_text.ts");
  return parseConfigText(text, { file, env });
}

/** The config of `text` when it is plain JSON that validates; null otherwise. */
function plainConfig(
  text: string,
  options: { file: string; env: Record<string, string | undefined> },
): LoadedConfig | null {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  try {
    return configFromValue(raw, options);
  } catch {
    return null;
  }
}

/**
 * Loads a root's whole configuration: `gateway.env` over the process environment, then
 * `gateway.json`, then, when that has no `mcpServers`, the servers of the project's
 * `.mcp.json` (Claude Code's file, `${VAR}` and `${VAR:-default}` expanded as it does).
 */
export async function loadRootConfig(
  root: ResolvedRoot,
  processEnv: Record<string, string | undefined>,
): Promise<LoadedConfig> {
  const envFile = await readEnvFile(root.dir);
  const env = { ...processEnv, ...envFile.vars };
  const loaded = await loadConfig(root.configFile, env);
  loaded.warnings.push(...envFile.warnings);
  const mcpJson = mcpJsonFileOf(root);
  // A config whose servers are all blocked by unset variables still has servers of its own.
  const ownServers = Object.keys(loaded.config.mcpServers).length +
    loaded.blocked.filter((b) => b.section === "mcpServers").length;
  if (mcpJson === null || ownServers > 0) return loaded;
  let text: string;
  try {
    text = await Deno.readTextFile(mcpJson);
  } catch (error) {
    throw new ConfigError(`Cannot read "${mcpJson}": ${(error as Error).message}`, {
      cause: error,
    });
  }
  const foreign = parseForeignServers(text, mcpJson);
  loaded.warnings.push(...foreign.warnings);
  const taken = expandEntries("mcpServers", foreign.servers, {
    env,
    secrets: loaded.secrets,
    file: mcpJson,
  });
  loaded.blocked.push(...taken.blocked);
  for (const [name, entry] of Object.entries(taken.entries)) {
    const parsed = mcpServerSchema.safeParse(entry);
    if (!parsed.success) {
      throw new ConfigError(
        `Invalid config "${mcpJson}": "mcpServers.${name}": ${
          parsed.error.issues.map((i) =>
            `${i.path.length ? `${i.path.join(".")}: ` : ""}${i.message}`
          ).join("; ")
        }`,
      );
    }
    loaded.config.mcpServers[name] = parsed.data;
  }
  loaded.mcpJsonFile = mcpJson;
  return loaded;
}
