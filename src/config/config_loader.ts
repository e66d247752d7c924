/**
 * Reads `gateway.json` (JSON with comments), expands `${env:NAME}`, and validates it with the
 * zod schema, turning every problem into one message naming the file, line and key path.
 * @module
 */

import {
  findNodeAtLocation,
  getNodeValue,
  type ParseError,
  parseTree,
  printParseErrorCode,
} from "jsonc-parser";
import { type GatewayConfig, gatewayConfigSchema } from "./gateway_config.ts";
import { ConfigError } from "./config_error.ts";

export { ConfigError };

/** A loaded configuration plus the secret values `${env:…}` expanded to (for redaction). */
export interface LoadedConfig {
  config: GatewayConfig;
  file: string | null;
  /** Values substituted from the environment; never stored or logged. */
  secrets: string[];
  warnings: string[];
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

function pathText(path: readonly PropertyKey[]): string {
  return path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("").replace(
    /^\./,
    "",
  );
}

/** Keys lootbox configs carry that mean nothing to the gateway; dropped with a warning. */
const LOOTBOX_KEYS = ["lootbox_root", "lootbox_data_dir", "tools_dir", "workflows_dir"];

/**
 * Expands `${env:NAME}` in every string of a parsed JSON value. A missing variable is an error
 * naming the key path and the variable.
 */
export function expandEnv(
  value: unknown,
  options: {
    env: Record<string, string | undefined>;
    path?: (string | number)[];
    secrets: string[];
  },
): unknown {
  const path = options.path ?? [];
  if (typeof value === "string") {
    return value.replace(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => {
      const found = options.env[name];
      if (found === undefined) {
        throw new ConfigError(
          `"${
            pathText(path)
          }" uses \${env:${name}} but the environment has no ${name}: set it or remove the reference`,
        );
      }
      if (found.length > 0) options.secrets.push(found);
      return found;
    });
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

/** Parses and validates config text; `file` is only used in messages. */
export function parseConfigText(
  text: string,
  options: { file: string; env: Record<string, string | undefined> },
): LoadedConfig {
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first) {
    throw new ConfigError(
      `Invalid JSON in "${options.file}" at line ${lineOf(text, first.offset)}: ${
        printParseErrorCode(first.error)
      }`,
    );
  }
  const raw = tree === undefined ? {} : getNodeValue(tree);
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
    expanded = expandEnv(record, { env: options.env, secrets });
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
      const node = tree && findNodeAtLocation(
        tree,
        at.filter((p) => typeof p !== "symbol") as (
          | string
          | number
        )[],
      );
      const where = node ? ` (line ${lineOf(text, node.offset)})` : "";
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

/** Loads the config file of a root, or the defaults when there is none. */
export async function loadConfig(
  file: string | null,
  env: Record<string, string | undefined>,
): Promise<LoadedConfig> {
  if (file === null) {
    return { config: gatewayConfigSchema.parse({}), file: null, secrets: [], warnings: [] };
  }
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (error) {
    throw new ConfigError(`Cannot read config "${file}": ${(error as Error).message}`, {
      cause: error,
    });
  }
  return parseConfigText(text, { file, env });
}
