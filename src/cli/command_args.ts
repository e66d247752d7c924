/**
 * Parses one command's arguments with `node:util` parseArgs (strict: an unknown flag is a
 * usage error), plus the Deno-style `--allow-X[=values]` permission flags runs accept.
 * @module
 */

import { parseArgs } from "node:util";
import type { PermissionSet } from "../config/gateway_config.ts";
import { HelpRequested } from "./help_requested.ts";
import { UsageError } from "./usage_error.ts";
import { nearestNames } from "../protocol/names.ts";

/** Flag declarations for one command. */
export interface FlagSpec {
  booleans?: readonly string[];
  strings?: readonly string[];
  /** String flags that may repeat (`--var a=1 --var b=2`). */
  lists?: readonly string[];
  /** Accept `--allow-net[=…]` and friends. */
  permissions?: boolean;
}

/** Parsed arguments. */
export interface ParsedArgs {
  flags: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
  /** Everything after `--`, verbatim. */
  rest: string[];
  permissions: PermissionSet | undefined;
}

const PERMISSION_NAMES = ["net", "read", "write", "env", "run", "ffi", "sys"] as const;
const PERMISSION_FLAG = new RegExp(`^--allow-(${PERMISSION_NAMES.join("|")})(?:=(.*))?$`);

/** Flags every command takes (the entry point reads them wherever they are). */
const GLOBAL_FLAGS = ["--root", "--no-autostart"];

/**
 * "Unknown option" with the nearest flags a typo may have meant (`--jsn` → `--json`), so a
 * slip is answered in one line instead of a page of usage.
 */
export function unknownOption(flag: string, known: readonly string[]): string {
  const name = flag.replace(/=.*$/, "");
  const near = nearestNames(name.replace(/^-+/, ""), known.map((k) => k.replace(/^-+/, "")), {
    limit: 1,
  });
  return `Unknown option "${name}"${near[0] !== undefined ? `: did you mean "--${near[0]}"?` : ""}`;
}

/**
 * Parses `args` against `spec`; throws {@linkcode UsageError} with `usage` on a mistake, and
 * {@linkcode HelpRequested} with `usage` when `--help` is given (the command table prints it).
 */
export function parseCommandArgs(
  args: readonly string[],
  spec: FlagSpec,
  usage: string,
): ParsedArgs {
  const dashDash = args.indexOf("--");
  const head = dashDash >= 0 ? args.slice(0, dashDash) : [...args];
  const rest = dashDash >= 0 ? args.slice(dashDash + 1) : [];
  let permissions: PermissionSet | undefined;
  const remaining: string[] = [];
  for (const arg of head) {
    const match = spec.permissions ? PERMISSION_FLAG.exec(arg) : null;
    if (!match) {
      remaining.push(arg);
      continue;
    }
    permissions ??= {};
    const name = match[1] as keyof PermissionSet;
    const values = match[2];
    if (values === undefined || values === "") permissions[name] = true;
    else {
      const existing = permissions[name];
      const list = Array.isArray(existing) ? existing : [];
      permissions[name] = [...list, ...values.split(",").filter((v) => v !== "")];
    }
  }
  const options: Record<string, { type: "string" | "boolean"; multiple?: boolean }> = {
    help: { type: "boolean" },
  };
  for (const b of spec.booleans ?? []) options[b] = { type: "boolean" };
  for (const s of spec.strings ?? []) options[s] = { type: "string" };
  for (const l of spec.lists ?? []) options[l] = { type: "string", multiple: true };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: remaining, options, strict: true, allowPositionals: true });
  } catch (error) {
    const message = (error as Error).message.replace(/\. To specify.*$/s, "");
    const unknown = /^Unknown option '(-[^']*)'/.exec(message)?.[1];
    if (unknown === undefined) throw new UsageError(message, usage);
    const known = Object.keys(options).map((name) => `--${name}`);
    if (spec.permissions) known.push(...PERMISSION_NAMES.map((name) => `--allow-${name}`));
    throw new UsageError(unknownOption(unknown, [...known, ...GLOBAL_FLAGS]), usage);
  }
  if (parsed.values.help) throw new HelpRequested(usage);
  return {
    flags: parsed.values as ParsedArgs["flags"],
    positionals: parsed.positionals,
    rest,
    permissions,
  };
}

/** Reads an integer flag, refusing anything else with a usage error naming the flag. */
export function intFlag(
  value: string | boolean | string[] | undefined,
  name: string,
  usage: string,
): number | undefined {
  if (value === undefined) return undefined;
  const n = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n)) {
    throw new UsageError(`--${name} takes a whole number, not "${String(value)}"`, usage);
  }
  return n;
}
