/**
 * Resolves a caller's permission request for one run: relative paths against the caller's
 * directory, then checked against `exec.maxPermissions` (SPEC §5) before anything starts.
 * @module
 */

import { isAbsolute, resolve } from "node:path";
import type { PermissionSet } from "../config/gateway_config.ts";
import { permissionsBeyond } from "../config/permission_flags.ts";

/** The outcome: the grant to run with, or why it is refused. */
export type PermissionDecision =
  | { ok: true; permissions: PermissionSet }
  | { ok: false; message: string };

function resolvePaths(grant: PermissionSet["read"], cwd: string): PermissionSet["read"] {
  if (!Array.isArray(grant)) return grant;
  return grant.map((p) => (isAbsolute(p) ? p : resolve(cwd, p)));
}

/** Merges the config's default grant with the request and checks the ceiling. */
export function decidePermissions(
  requested: PermissionSet | undefined,
  options: { defaults: PermissionSet; ceiling: PermissionSet; cwd: string },
): PermissionDecision {
  const want: PermissionSet = { ...options.defaults, ...(requested ?? {}) };
  const resolved: PermissionSet = {
    ...want,
    read: resolvePaths(want.read, options.cwd),
    write: resolvePaths(want.write, options.cwd),
  };
  for (const key of Object.keys(resolved) as (keyof PermissionSet)[]) {
    if (resolved[key] === undefined) delete resolved[key];
  }
  const ceiling: PermissionSet = {
    ...options.ceiling,
    read: resolvePaths(options.ceiling.read, options.cwd),
    write: resolvePaths(options.ceiling.write, options.cwd),
  };
  // The config's own default grant is always within bounds: the ceiling applies to requests.
  const excess = permissionsBeyond(requested ? resolvedRequest(requested, options.cwd) : {}, {
    ...mergeCeiling(ceiling, options.defaults),
  });
  if (excess.length > 0) {
    return {
      ok: false,
      message: `Refused before start: ${excess.join("; ")}. ` +
        `Ask for less, or raise exec.maxPermissions in gateway.json`,
    };
  }
  return { ok: true, permissions: resolved };
}

function resolvedRequest(requested: PermissionSet, cwd: string): PermissionSet {
  return {
    ...requested,
    read: resolvePaths(requested.read, cwd),
    write: resolvePaths(requested.write, cwd),
  };
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
