/**
 * `ROOT/gateway.env`: the variables `${env:…}` and `${VAR}` references read, kept beside the
 * config so a server started by systemd, launchd or another shell sees the same values as
 * yours. Same syntax as systemd's `EnvironmentFile` (the service unit names it as one).
 * @module
 */

import { join } from "node:path";
import { ConfigError } from "./config_error.ts";

/** Name of the env file in a root. */
export const ENV_FILE_NAME = "gateway.env";

/** Path of the env file of a root. */
export function envFilePath(rootDir: string): string {
  return join(rootDir, ENV_FILE_NAME);
}

/** Variables read from an env file, and problems worth a warning (e.g. its mode). */
export interface EnvFile {
  vars: Record<string, string>;
  warnings: string[];
}

/**
 * Parses `KEY=VALUE` lines; blank lines and lines starting with `#` or `;` are skipped, and a
 * value wrapped in single or double quotes loses them. A malformed line is a `ConfigError`
 * naming the file and the line.
 */
export function parseEnvFile(text: string, file: string): Record<string, string> {
  const vars: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  for (const [index, line] of lines.entries()) {
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("#") || trimmed.startsWith(";")) continue;
    const match = /^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(trimmed);
    if (!match) {
      throw new ConfigError(
        `Invalid env file "${file}" at line ${index + 1}: expected NAME=VALUE, got "${
          trimmed.slice(0, 40)
        }"`,
      );
    }
    let value = match[2]!;
    if (value.length >= 2 && /^(["']).*\1$/.test(value)) value = value.slice(1, -1);
    vars[match[1]!] = value;
  }
  return vars;
}

/**
 * Reads the env file of a root; an absent file is no variables. A file others can read
 * (the values are usually tokens) is read, with a warning saying how to fix it.
 */
export async function readEnvFile(rootDir: string): Promise<EnvFile> {
  const file = envFilePath(rootDir);
  let text: string;
  let mode: number | null;
  try {
    text = await Deno.readTextFile(file);
    mode = (await Deno.stat(file)).mode;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return { vars: {}, warnings: [] };
    throw new ConfigError(`Cannot read env file "${file}": ${(error as Error).message}`, {
      cause: error,
    });
  }
  const warnings: string[] = [];
  if (mode !== null && Deno.build.os !== "windows" && (mode & 0o077) !== 0) {
    warnings.push(
      `env file "${file}" is readable by others (mode ${
        (mode & 0o777).toString(8)
      }): run chmod 600 "${file}"`,
    );
  }
  return { vars: parseEnvFile(text, file), warnings };
}
