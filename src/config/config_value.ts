/**
 * A parsed `gateway.json` value made a configuration: `${env:…}` expanded (collecting the
 * secrets it expanded to), lootbox keys dropped, `mcpServers` entries normalised, and the
 * whole validated with the zod schema, each problem named by key path and line.
 * @module
 */

import { type GatewayConfig, gatewayConfigSchema } from "./gateway_config.ts";
import { ConfigError } from "./config_error.ts";
import { ENV_FILE_NAME } from "./env_file.ts";
import { normaliseServerEntry } from "./mcp_json.ts";

/** A loaded configuration plus the secret values `${env:…}` expanded to (for redaction). */
export interface LoadedConfig {
  config: GatewayConfig;
  file: string | null;
  /** Values substituted from the environment; never stored or logged. */
  secrets: string[];
  warnings: string[];
  /** The `.mcp.json` whose servers are in use (the root's config has no `mcpServers`). */
  mcpJsonFile?: string;
}

function pathText(path: readonly PropertyKey[]): string {
  return path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("").replace(
    /^\./,
    "",
  );
}

/** Keys lootbox configs carry that mean nothing to the gateway; dropped with a warning. */
const LOOTBOX_KEYS = ["lootbox_root", "lootbox_data_dir", "tools_dir", "workflows_dir"];

/** A `${…}` reference to a variable the environment lacks (and that has no default). */
export interface UnsetVariable {
  path: (string | number)[];
  name: string;
}

/**
 * Expands `${env:NAME}` in every string of a parsed JSON value, and inside `mcpServers` also
 * Claude Code's `${NAME}`; both take a default as `${NAME:-default}`. A variable the
 * environment lacks is collected into `unset` (expanding to "") when given, else an error
 * naming the key path and the variable.
 */
export function expandEnv(
  value: unknown,
  options: {
    env: Record<string, string | undefined>;
    path?: (string | number)[];
    secrets: string[];
    /** Whether `${NAME}` (without `env:`) is a reference everywhere, not only in mcpServers. */
    bare?: boolean;
    unset?: UnsetVariable[];
  },
): unknown {
  const path = options.path ?? [];
  if (typeof value === "string") {
    const bare = options.bare === true || path[0] === "mcpServers";
    const pattern = bare
      ? /\$\{(env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g
      : /\$\{(env:)([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;
    return value.replace(
      pattern,
      (_m, prefix: string | undefined, name: string, fallback?: string) => {
        const found = options.env[name];
        if (found === undefined || (found === "" && fallback !== undefined)) {
          if (fallback !== undefined) return fallback;
          if (options.unset) {
            options.unset.push({ path, name });
            return "";
          }
          throw new ConfigError(
            `"${pathText(path)}" uses \${${
              prefix ?? ""
            }${name}} but the environment has no ${name}: set it (or add it to ${ENV_FILE_NAME} in the root) or remove the reference`,
          );
        }
        if (found.length > 0) options.secrets.push(found);
        return found;
      },
    );
  }
  if (Array.isArray(value)) {
    return value.map((v, i) => expandEnv(v, { ...options, path: [...path, i] }));
  }
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = expandEnv(v, { ...options, path: [...path, k] });
    }
    return out;
  }
  return value;
}

/**
 * Expands references in `mcpServers` entries; an entry that uses an unset variable is left
 * out with a warning naming it, so one server's missing token does not stop the gateway.
 */
export function expandServers(
  servers: Record<string, unknown>,
  options: { env: Record<string, string | undefined>; secrets: string[]; file: string },
): { servers: Record<string, unknown>; warnings: string[] } {
  const out: Record<string, unknown> = {};
  const warnings: string[] = [];
  for (const [name, entry] of Object.entries(servers)) {
    const unset: UnsetVariable[] = [];
    const expanded = expandEnv(entry, {
      env: options.env,
      secrets: options.secrets,
      path: ["mcpServers", name],
      unset,
    });
    if (unset.length === 0) {
      out[name] = expanded;
      continue;
    }
    const names = [...new Set(unset.map((u) => u.name))];
    warnings.push(
      `mcpServers "${name}" (${options.file}) is not started: it uses ${
        names.map((n) => `\${${n}}`).join(", ")
      }, unset in the gateway server's environment: set ${
        names.length > 1 ? "them" : "it"
      } in ${ENV_FILE_NAME} beside the config (the gateway reloads it)`,
    );
  }
  return { servers: out, warnings };
}

/**
 * Validates a parsed config value (expanding `${env:…}`); `file` is only used in messages, and
 * `lineAt` finds the line of a key path for them (none when the text was read as plain JSON).
 */
export function configFromValue(
  raw: unknown,
  options: {
    file: string;
    env: Record<string, string | undefined>;
    lineAt?: (path: (string | number)[]) => number | undefined;
  },
): LoadedConfig {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw new ConfigError(`Invalid config "${options.file}": the top level must be an object`);
  }
  const warnings: string[] = [];
  const record = raw as Record<string, unknown>;
  if (options.file.endsWith("lootbox.config.json")) {
    for (const key of LOOTBOX_KEYS) {
      if (key in record) {
        warnings.push(`"${options.file}": lootbox key "${key}" is ignored by gateway`);
        delete record[key];
      }
    }
  }
  const secrets: string[] = [];
  let expanded: unknown;
  try {
    const servers = record.mcpServers;
    const { mcpServers: _, ...rest } = record;
    expanded = expandEnv(rest, { env: options.env, secrets });
    if (servers !== null && typeof servers === "object" && !Array.isArray(servers)) {
      const normalised: Record<string, unknown> = {};
      for (const [name, entry] of Object.entries(servers)) {
        normalised[name] = normaliseServerEntry(name, entry, {
          file: options.file,
          warnings,
          strict: true,
        });
      }
      const taken = expandServers(normalised, { env: options.env, secrets, file: options.file });
      warnings.push(...taken.warnings);
      (expanded as Record<string, unknown>).mcpServers = taken.servers;
    } else if (servers !== undefined) {
      (expanded as Record<string, unknown>).mcpServers = servers;
    }
  } catch (error) {
    if (error instanceof ConfigError) {
      throw new ConfigError(`Invalid config "${options.file}": ${error.message}`);
    }
    throw error;
  }
  const parsed = gatewayConfigSchema.safeParse(expanded);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const keys = issue.code === "unrecognized_keys" ? issue.keys : [];
      const at = keys.length > 0 ? [...issue.path, keys[0] as string] : issue.path;
      const line = options.lineAt?.(
        at.filter((p) => typeof p !== "symbol") as (
          | string
          | number
        )[],
      );
      const where = line !== undefined ? ` (line ${line})` : "";
      const key = pathText(issue.path);
      if (issue.code === "unrecognized_keys") {
        return `unknown key ${
          keys.map((k) => `"${key ? `${key}.` : ""}${k}"`).join(", ")
        }${where}: remove it or check the spelling`;
      }
      return `"${key || "(top level)"}"${where}: ${issue.message}`;
    });
    throw new ConfigError(`Invalid config "${options.file}": ${lines.join("; ")}`);
  }
  return { config: parsed.data, file: options.file, secrets, warnings };
}
