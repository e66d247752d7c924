/**
 * Normalises the values of a permission grant before anything compares or passes them on
 * (docs/architecture.md#sandbox): paths made absolute, `..` folded and symlinks resolved where
 * they exist; hosts, variable names and commands checked for a shape Deno reads as one value.
 * A value Deno would split (`,`) or misread is refused, never passed through.
 * @module
 */

import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import type { PermissionSet } from "./gateway_config.ts";

/** The permission names a {@linkcode PermissionSet} can hold, in Deno's flag order. */
export const PERMISSION_NAMES = ["net", "read", "write", "env", "run", "ffi", "sys"] as const;

/** One of {@linkcode PERMISSION_NAMES}. */
export type PermissionName = typeof PERMISSION_NAMES[number];

/** Permission kinds whose values are file system paths. */
const PATH_KINDS: ReadonlySet<PermissionName> = new Set(["read", "write", "ffi"]);

/** A host, an IPv4 address or a bracketed IPv6 address, with an optional port. */
const NET_VALUE =
  /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;
/** An environment variable name, optionally ending in `*` (Deno's prefix wildcard). */
const ENV_VALUE = /^[A-Za-z_][A-Za-z0-9_]*\*?$/;
/** A `sys` API name such as `hostname` or `osRelease`. */
const SYS_VALUE = /^[A-Za-z]+$/;

/** The outcome of normalising one grant. */
export type NormalisedGrant =
  | { ok: true; permissions: PermissionSet }
  | { ok: false; problems: string[] };

/**
 * Resolves `path` to the path it names on disk: absolute, `..` folded, and symlinks resolved
 * for the longest part that exists (the rest is kept as written), so a grant cannot reach a
 * directory through a link or a `..` the ceiling check did not see.
 */
export function canonicalPath(path: string): string {
  const absolute = resolve(path);
  const rest: string[] = [];
  let head = absolute;
  for (;;) {
    try {
      const real = Deno.realPathSync(head);
      return rest.length === 0 ? real : join(real, ...rest.reverse());
    } catch {
      const parent = dirname(head);
      if (parent === head) return absolute;
      rest.push(basename(head));
      head = parent;
    }
  }
}

/** Whether `inner` is `outer` or lies below it, compared by whole path segments. */
export function pathWithin(inner: string, outer: string): boolean {
  const rel = relative(outer, inner);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** Why one value cannot be granted, or null when its shape is fine. */
function shapeProblem(name: PermissionName, value: string): string | null {
  if (value === "") return `${name} value is empty`;
  if (/[,\0\r\n]/.test(value)) {
    return `${name} value ${JSON.stringify(value)} contains a separator (",", NUL or a newline): ` +
      `give each value as its own list entry`;
  }
  if (name === "net" && !NET_VALUE.test(value.toLowerCase())) {
    return `net value ${JSON.stringify(value)} is not a host, host:port or [ipv6]:port`;
  }
  if (name === "env" && !ENV_VALUE.test(value)) {
    return `env value ${JSON.stringify(value)} is not a variable name`;
  }
  if (name === "sys" && !SYS_VALUE.test(value)) {
    return `sys value ${JSON.stringify(value)} is not a sys API name (e.g. "hostname")`;
  }
  return null;
}

/**
 * Normalises every value of `set`. Relative paths resolve against `base`; with `base` null a
 * relative path grants nothing (config paths are never read against a directory a caller chose).
 * `run` values that name a path are resolved like paths; bare command names stay as they are.
 */
export function normaliseGrant(set: PermissionSet, base: string | null): NormalisedGrant {
  const problems: string[] = [];
  const out: PermissionSet = {};
  for (const name of PERMISSION_NAMES) {
    const grant = set[name];
    if (grant === undefined) continue;
    if (!Array.isArray(grant)) {
      out[name] = grant;
      continue;
    }
    const values: string[] = [];
    for (const raw of grant) {
      const problem = shapeProblem(name, raw);
      if (problem) {
        problems.push(problem);
        continue;
      }
      const isPath = PATH_KINDS.has(name) || (name === "run" && raw.includes("/"));
      if (!isPath) {
        values.push(name === "net" ? raw.toLowerCase() : raw);
        continue;
      }
      if (!isAbsolute(raw) && base === null) continue;
      values.push(canonicalPath(isAbsolute(raw) ? raw : resolve(base!, raw)));
    }
    out[name] = [...new Set(values)];
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, permissions: out };
}

/**
 * Whether one allowed value covers a requested one, both normalised: paths by whole segments
 * (`/a` covers `/a/b`, not `/ab`), hosts without a port cover every port, others by equality.
 */
export function grantCovers(name: PermissionName, allowed: string, requested: string): boolean {
  if (PATH_KINDS.has(name)) return pathWithin(requested, allowed);
  if (name === "net") {
    return requested === allowed || (!/:\d+$/.test(allowed) && requested.startsWith(`${allowed}:`));
  }
  return requested === allowed;
}
