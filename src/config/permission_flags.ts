/**
 * Translates a {@linkcode PermissionSet} into Deno command-line flags, so runs and tool hosts
 * get exactly the grants config and callers asked for, and checks one set against a ceiling.
 * @module
 */

import type { PermissionSet } from "./gateway_config.ts";
import { grantCovers, PERMISSION_NAMES } from "./permission_values.ts";

/**
 * Flags for `deno run`. Absent or `false` grants nothing; `true` grants all; a list grants those
 * values only (an empty list grants nothing).
 *
 * @example
 * ```ts
 * import { permissionFlags } from "./permission_flags.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(permissionFlags({ net: ["example.com"], read: true }), ["--allow-net=example.com", "--allow-read"]);
 * ```
 */
export function permissionFlags(set: PermissionSet): string[] {
  const flags: string[] = [];
  for (const name of PERMISSION_NAMES) {
    const grant = set[name];
    if (grant === true) flags.push(`--allow-${name}`);
    else if (Array.isArray(grant) && grant.length > 0) {
      // Deno splits a flag's value at commas: a value holding one would become several grants.
      const split = grant.find((value) => value.includes(","));
      if (split !== undefined) {
        throw new RangeError(`Cannot grant ${name} ${JSON.stringify(split)}: it contains ","`);
      }
      flags.push(`--allow-${name}=${grant.join(",")}`);
    }
  }
  return flags;
}

/** Whether a set grants nothing at all (the default sandbox). */
export function isEmptyPermissionSet(set: PermissionSet): boolean {
  return permissionFlags(set).length === 0;
}

/** Whether one permission's grant grants nothing: absent, `false` or an empty list. */
export function grantsNothing(
  grant: boolean | string[] | undefined,
): grant is false | undefined | never[] {
  return grant === undefined || grant === false || (Array.isArray(grant) && grant.length === 0);
}

/**
 * Lists what `requested` asks for beyond `ceiling` (both normalised by `normaliseGrant`), one
 * message per excess, e.g. `net "example.com" is beyond exec.maxPermissions.net`. Empty when
 * within bounds.
 */
export function permissionsBeyond(requested: PermissionSet, ceiling: PermissionSet): string[] {
  const excess: string[] = [];
  for (const name of PERMISSION_NAMES) {
    const want = requested[name];
    const max = ceiling[name];
    if (grantsNothing(want)) continue;
    if (max === true) continue;
    if (want === true) {
      excess.push(`${name} (unrestricted) is beyond exec.maxPermissions.${name}`);
      continue;
    }
    const allowed = Array.isArray(max) ? max : [];
    for (const value of want) {
      if (!allowed.some((a) => grantCovers(name, a, value))) {
        excess.push(`${name} "${value}" is beyond exec.maxPermissions.${name}`);
      }
    }
  }
  return excess;
}
