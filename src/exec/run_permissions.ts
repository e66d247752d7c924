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

/**
 * Makes the paths of a grant absolute against `base`. With no base, relative paths are dropped:
 * a config path must never be read against a directory the caller chose.
 */
function resolvePaths(grant: PermissionSet["read"], base: string | null): PermissionSet["read"] {
  if (!Array.isArray(grant)) return grant;
  return grant.flatMap((p) => (isAbsolute(p) ? [p] : base === null ? [] : [resolve(base, p)]));
}

function resolveSet(set: PermissionSet, base: string | null): PermissionSet {
  const out: PermissionSet = { ...set };
  if (set.read !== undefined) out.read = resolvePaths(set.read, base);
  if (set.write !== undefined) out.write = resolvePaths(set.write, base);
  return out;
}

/**
 * Merges the config's default grant with the request and checks the request against the
 * ceiling. Paths the caller asks for resolve against `cwd` (the caller's directory); paths in
 * the config (`defaults`, `ceiling`) resolve against `configDir`, the root holding
 * `gateway.json`, so a caller cannot widen the ceiling by choosing its working directory.
 */
export function decidePermissions(
  requested: PermissionSet | undefined,
  options: {
    defaults: PermissionSet;
    ceiling: PermissionSet;
    cwd: string;
    /** Where relative config paths point; without it they grant nothing. @default {null} */
    configDir?: string | null;
  },
): PermissionDecision {
  const configDir = options.configDir ?? null;
  const request = resolveSet(requested ?? {}, options.cwd);
  const resolved: PermissionSet = { ...resolveSet(options.defaults, configDir), ...request };
  for (const key of Object.keys(resolved) as (keyof PermissionSet)[]) {
    if (resolved[key] === undefined) delete resolved[key];
  }
  const ceiling = resolveSet(options.ceiling, configDir);
  // The config's own default grant is always within bounds: the ceiling applies to requests.
  const excess = permissionsBeyond(
    request,
    mergeCeiling(ceiling, resolveSet(options.defaults, configDir)),
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
