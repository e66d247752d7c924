/**
 * The MCP configs people already have: a project's `.mcp.json` (Claude Code) and Claude
 * Desktop's `claude_desktop_config.json`, turned into `mcpServers` entries of `gateway.json`
 * (SPEC §14). Entries keep their `${VAR}` references; expansion happens at load.
 * @module
 */

import { ConfigError } from "./config_error.ts";

/** Servers taken from a foreign config file, in gateway.json's shape, and what was dropped. */
export interface ForeignServers {
  servers: Record<string, Record<string, unknown>>;
  /** Keys or entries left out, each naming the server and the key. */
  warnings: string[];
}

const COMMON_KEYS = new Set(["disabled", "startTimeoutMs"]);
const STDIO_KEYS = new Set(["command", "args", "env", "cwd"]);
const REMOTE_KEYS = new Set(["url", "headers", "transport"]);

/**
 * Turns one server entry (`type`: "stdio" | "http" | "sse" | absent) into gateway.json's shape:
 * `type: "http"` becomes `transport: "streamable-http"`, `"sse"` stays `"sse"`, and keys
 * gateway has no use for (`alwaysAllow`, `timeout` …) are dropped with a warning.
 */
export function normaliseServerEntry(
  name: string,
  entry: unknown,
  options: { file: string; warnings: string[]; strict: boolean },
): Record<string, unknown> {
  if (entry === null || typeof entry !== "object" || Array.isArray(entry)) {
    throw new ConfigError(
      `Invalid config "${options.file}": "mcpServers.${name}" must be an object with "command" or "url"`,
    );
  }
  const record = { ...entry as Record<string, unknown> };
  const type = record.type;
  delete record.type;
  if (type !== undefined) {
    if (type === "http" || type === "streamable-http") record.transport ??= "streamable-http";
    else if (type === "sse") record.transport ??= "sse";
    else if (type !== "stdio") {
      throw new ConfigError(
        `Invalid config "${options.file}": "mcpServers.${name}.type" is "${
          String(type)
        }": use "stdio", "http" or "sse"`,
      );
    }
  }
  if (options.strict) return record;
  const allowed = "url" in record ? REMOTE_KEYS : STDIO_KEYS;
  for (const key of Object.keys(record)) {
    if (allowed.has(key) || COMMON_KEYS.has(key)) continue;
    options.warnings.push(
      `"${options.file}": "mcpServers.${name}.${key}" has no meaning for gateway and is left out`,
    );
    delete record[key];
  }
  return record;
}

/**
 * Reads the `mcpServers` of a `.mcp.json` or Claude Desktop config text. Throws `ConfigError`
 * naming the file when it is not JSON or has no `mcpServers` object.
 */
export function parseForeignServers(text: string, file: string): ForeignServers {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`Invalid JSON in "${file}": ${(error as Error).message}`, {
      cause: error,
    });
  }
  const servers = raw !== null && typeof raw === "object" && !Array.isArray(raw)
    ? (raw as Record<string, unknown>).mcpServers
    : undefined;
  if (servers === null || typeof servers !== "object" || Array.isArray(servers)) {
    throw new ConfigError(
      `Invalid config "${file}": it has no "mcpServers" object (expected a .mcp.json or claude_desktop_config.json)`,
    );
  }
  const warnings: string[] = [];
  const out: Record<string, Record<string, unknown>> = {};
  for (const [name, entry] of Object.entries(servers as Record<string, unknown>)) {
    out[name] = normaliseServerEntry(name, entry, { file, warnings, strict: false });
  }
  return { servers: out, warnings };
}
