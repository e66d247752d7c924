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
  /**
   * `mcpServers` and `apis` entries left out because they use a variable the environment
   * lacks: each is still a namespace, one that says why it is not running and how to fix it.
   */
  blocked: BlockedEntry[];
}

/** A configured `mcpServers` or `apis` entry that is not started: it uses unset variables. */
export interface BlockedEntry {
  section: "mcpServers" | "apis";
  name: string;
  /** The kind of namespace it would be. */
  kind: "mcp" | "openapi" | "graphql";
  /** The unset variables it uses, each once, in order of use. */
  variables: string[];
  /** The file the entry is in (`gateway.json`, `.mcp.json`). */
  file: string;
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
 * Expands references in each entry of `mcpServers` or `apis`; an entry (not disabled) that uses
 * an unset variable is left out and answered in `blocked`, so one server's missing token does
 * not stop the gateway, and that namespace can still say why it is not running.
 */
export function expandEntries(
  section: "mcpServers" | "apis",
  entries: Record<string, unknown>,
  options: { env: Record<string, string | undefined>; secrets: string[]; file: string },
): { entries: Record<string, unknown>; blocked: BlockedEntry[] } {
  const out: Record<string, unknown> = {};
  const blocked: BlockedEntry[] = [];
  for (const [name, entry] of Object.entries(entries)) {
    const unset: UnsetVariable[] = [];
    const expanded = expandEnv(entry, {
      env: options.env,
      secrets: options.secrets,
      path: [section, name],
      unset,
    });
    const disabled = isRecord(entry) && entry.disabled === true;
    if (unset.length === 0 || disabled) {
      out[name] = expanded;
      continue;
    }
    blocked.push({
      section,
      name,
      kind: section === "mcpServers"
        ? "mcp"
        : isRecord(entry) && entry.graphql !== undefined
        ? "graphql"
        : "openapi",
      variables: [...new Set(unset.map((u) => u.name))],
      file: options.file,
    });
  }
  return { entries: out, blocked };
}

/**
 * Why a blocked entry is not running and the fix, in one sentence: what `gateway tools` shows
 * and what a run that calls it is told (`NamespaceUnavailable`).
 */
export function blockedReason(entry: BlockedEntry, envFile: string): string {
  const refs = entry.variables.map((n) => `\${${n}}`).join(", ");
  const lines = entry.variables.map((n) => `${n}=…`).join(" and ");
  return `configured (${entry.section} "${entry.name}" in ${entry.file}) but not started: it uses ${refs}, unset in the gateway server's environment; add ${lines} to ${envFile} (the gateway reloads it)`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
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
  const blocked: BlockedEntry[] = [];
  let expanded: Record<string, unknown>;
  try {
    const { mcpServers: servers, apis, ...rest } = record;
    expanded = expandEnv(rest, { env: options.env, secrets }) as Record<string, unknown>;
    if (isRecord(servers)) {
      const normalised: Record<string, unknown> = {};
      for (const [name, entry] of Object.entries(servers)) {
        normalised[name] = normaliseServerEntry(name, entry, {
          file: options.file,
          warnings,
          strict: true,
        });
      }
      const taken = expandEntries("mcpServers", normalised, {
        env: options.env,
        secrets,
        file: options.file,
      });
      blocked.push(...taken.blocked);
      expanded.mcpServers = taken.entries;
    } else if (servers !== undefined) {
      expanded.mcpServers = servers;
    }
    if (isRecord(apis)) {
      const taken = expandEntries("apis", apis, { env: options.env, secrets, file: options.file });
      blocked.push(...taken.blocked);
      expanded.apis = taken.entries;
    } else if (apis !== undefined) {
      expanded.apis = apis;
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
  return { config: parsed.data, file: options.file, secrets, warnings, blocked };
}
