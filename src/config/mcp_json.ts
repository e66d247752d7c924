/**
 * The MCP configs people already have: a project's `.mcp.json` (Claude Code) and Claude
 * Desktop's `claude_desktop_config.json`, turned into `mcpServers` entries of `gateway.json`.
 * Entries keep their `${VAR}` references; expansion happens at load.
 * @module
 */

import { ConfigError } from "./config_error.ts";
import { printable } from "./printable_text.ts";

/** Servers taken from a foreign config file, in gateway.json's shape, and what was dropped. */
export interface ForeignServers {
  servers: Record<string, Record<string, unknown>>;
  /** Keys or entries left out, each naming the server and the key. */
  warnings: string[];
}

const COMMON_KEYS = new Set(["disabled", "startTimeoutMs"]);

/** Longest server name taken from a foreign config. */
const MAX_NAME_LENGTH = 64;

/**
 * Why `name` cannot name a server taken from a foreign config, or null when it can: it must be
 * printable text (no control or format characters, which would act on the terminal that shows
 * it), at most 64 characters, and no member of every object (`__proto__`, `constructor` …),
 * which as a key would change or shadow the object that holds the servers.
 */
export function serverNameProblem(name: string): string | null {
  if (name.trim() === "") return "is empty";
  if (name.length > MAX_NAME_LENGTH) return `is longer than ${MAX_NAME_LENGTH} characters`;
  if (/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(name)) return "holds control characters";
  if (name in Object.prototype) return "is a name every JavaScript object has";
  return null;
}
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
  const out: Record<string, Record<string, unknown>> = Object.create(null);
  for (const [name, entry] of Object.entries(servers as Record<string, unknown>)) {
    const problem = serverNameProblem(name);
    if (problem !== null) {
      warnings.push(
        `"${file}": the server named "${printable(name)}" is left out: its name ${problem}`,
      );
      continue;
    }
    out[name] = normaliseServerEntry(name, entry, { file, warnings, strict: false });
  }
  return { servers: out, warnings };
}
