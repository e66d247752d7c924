/**
 * Resolves a caller's permission request for one run: every value normalised (paths absolute,
 * `..` folded, symlinks resolved; separators refused), then checked against
 * `exec.maxPermissions` before anything starts. The gateway's own data dir is
 * never granted to a run.
 * @module
 */

import type { PermissionSet } from "../config/gateway_config.ts";
import { permissionsBeyond } from "../config/permission_flags.ts";
import {
  canonicalPath,
  normaliseGrant,
  pathWithin,
  PERMISSION_NAMES,
} from "../config/permission_values.ts";

/** The outcome: the grant to run with, or why it is refused. */
export type PermissionDecision =
  | { ok: true; permissions: PermissionSet }
  | { ok: false; message: string };

/**
 * Merges the config's default grant with the request and checks the request against the
 * ceiling. Paths the caller asks for resolve against `cwd` (the caller's directory); paths in
 * the config (`defaults`, `ceiling`) resolve against `configDir`, the root holding
 * `gateway.json`, so a caller cannot widen the ceiling by choosing its working directory.
 * A path inside one of `protectedPaths` (the data dir) is refused whoever grants it.
 */
export function decidePermissions(
  requested: PermissionSet | undefined,
  options: {
    defaults: PermissionSet;
    ceiling: PermissionSet;
    cwd: string;
    /** Where relative config paths point; without it they grant nothing. @default {null} */
    configDir?: string | null;
    /** Directories no run may be granted (the data dir). @default {[]} */
    protectedPaths?: readonly string[];
  },
): PermissionDecision {
  const configDir = options.configDir ?? null;
  const request = normaliseGrant(requested ?? {}, options.cwd);
  if (!request.ok) {
    return { ok: false, message: `Refused before start: ${request.problems.join("; ")}` };
  }
  const defaults = normaliseGrant(options.defaults, configDir);
  const ceiling = normaliseGrant(options.ceiling, configDir);
  if (!defaults.ok || !ceiling.ok) {
    const problems = [
      ...(defaults.ok ? [] : defaults.problems.map((p) => `exec.permissions: ${p}`)),
      ...(ceiling.ok ? [] : ceiling.problems.map((p) => `exec.maxPermissions: ${p}`)),
    ];
    return { ok: false, message: `Refused before start: ${problems.join("; ")}: fix gateway.json` };
  }
  const resolved: PermissionSet = { ...defaults.permissions, ...request.permissions };
  for (const key of Object.keys(resolved) as (keyof PermissionSet)[]) {
    if (resolved[key] === undefined) delete resolved[key];
  }
  const guarded = protectedPathProblems(resolved, options.protectedPaths ?? []);
  if (guarded.length > 0) {
    return { ok: false, message: `Refused before start: ${guarded.join("; ")}` };
  }
  // The config's own default grant is always within bounds: the ceiling applies to requests.
  const excess = permissionsBeyond(
    request.permissions,
    mergeCeiling(ceiling.permissions, defaults.permissions),
  );
  if (excess.length > 0) {
    return {
      ok: false,
      message: `Refused before start: ${excess.join("; ")}. ` +
        `Ask for less, or raise exec.maxPermissions in gateway.json`,
    };
  }
  return { ok: true, permissions: resolved };
}

/** Grants that name a protected directory or a path inside it. */
function protectedPathProblems(set: PermissionSet, protectedPaths: readonly string[]): string[] {
  // Resolved only for a run that names paths: most runs grant none (a realpath per protected
  // path per run was measurable on the server's per-run CPU).
  let guarded: string[] | null = null;
  const problems: string[] = [];
  for (const name of PERMISSION_NAMES) {
    const grant = set[name];
    if (!Array.isArray(grant) || (name !== "read" && name !== "write" && name !== "ffi")) continue;
    guarded ??= protectedPaths.flatMap((p) => [p, canonicalPath(p)]);
    for (const value of grant) {
      const hit = guarded.find((dir) => pathWithin(value, dir));
      if (hit !== undefined) {
        problems.push(
          `${name} "${value}" is inside the gateway's data dir "${hit}", which holds its token ` +
            `and history and is never granted to a run`,
        );
      }
    }
  }
  return problems;
}

function mergeCeiling(ceiling: PermissionSet, defaults: PermissionSet): PermissionSet {
  const out: PermissionSet = { ...ceiling };
  for (const key of Object.keys(defaults) as (keyof PermissionSet)[]) {
    const c = ceiling[key];
    const d = defaults[key];
    if (c === true || d === undefined || d === false) continue;
    if (d === true) out[key] = true;
    else out[key] = [...(Array.isArray(c) ? c : []), ...d];
  }
  return out;
}
