/**
 * The argument conditions of policy rules (`"when": { "args": { "path": { "glob": "ROOT/out/**" } } }`):
 * each names an argument path and what every value there must be. Path values are compared
 * normalised (`ROOT/out/../secret` is `ROOT/secret`), and a relative path never matches an
 * absolute pattern, so a rule that allows a directory allows nothing outside it by spelling.
 * @module
 */

import { posix } from "node:path";
import type { ArgCondition } from "../config/gateway_config.ts";

/** Whether a call's arguments satisfy every condition of one rule. */
export type ArgsMatcher = (args: Readonly<Record<string, unknown>>) => boolean;

/**
 * Compiles a rule's `when.args` into one test: every condition holds when its argument path
 * reaches at least one value and every value it reaches satisfies the condition (so `paths.*`
 * allows a list only when every element is allowed). `ROOT` at the start of a glob is `root`.
 */
export function compileArgsConditions(
  conditions: Readonly<Record<string, ArgCondition>>,
  root: string,
): ArgsMatcher {
  const tests = Object.entries(conditions).map(([path, condition]) => {
    const keys = path.split(".");
    const accepts = valueTest(condition, root);
    return (args: Readonly<Record<string, unknown>>) => {
      const values = valuesAt(args, keys);
      return values.length > 0 && values.every(accepts);
    };
  });
  return (args) => tests.every((test) => test(args));
}

function valueTest(condition: ArgCondition, root: string): (value: unknown) => boolean {
  if (condition.glob !== undefined) {
    const glob = compilePathGlob(condition.glob, root);
    return (value) => typeof value === "string" && glob(value);
  }
  const expected = condition.equals;
  return (value) => value === expected;
}

/** The values at an argument path; `*` steps into every element of an array or object. */
function valuesAt(value: unknown, keys: readonly string[]): unknown[] {
  let current: unknown[] = [value];
  for (const key of keys) {
    const next: unknown[] = [];
    for (const item of current) {
      if (item === null || typeof item !== "object") continue;
      if (key === "*") next.push(...Object.values(item));
      // Own keys only: `__proto__` or `constructor` never reach Object.prototype.
      else if (Object.hasOwn(item, key)) next.push((item as Record<string, unknown>)[key]);
    }
    current = next;
  }
  return current;
}

/**
 * A path glob as a test of path text: `*` is any run of characters within one segment (dot
 * files included), `?` one character, `**` any number of whole segments, `ROOT` as the first
 * segment the root (taken literally). The path is normalised first (`.`, `..`, `//` and a
 * trailing `/` folded); a `..` left at the start of a relative path matches nothing, and a
 * relative path never matches an absolute pattern (nor the other way round).
 */
export function compilePathGlob(pattern: string, root: string): (path: string) => boolean {
  const rooted = pattern === "ROOT" || pattern.startsWith("ROOT/");
  const absolute = rooted || pattern.startsWith("/");
  const rootSegments = rooted ? segmentsOf(posix.normalize(root)) : [];
  const own = segmentsOf(rooted ? pattern.slice("ROOT".length) : pattern);
  const matchers: SegmentMatcher[] = [
    ...rootSegments.map((segment): SegmentMatcher => (text) => text === segment),
    ...own.map((segment): SegmentMatcher => segment === "**" ? GLOBSTAR : segmentPattern(segment)),
  ];
  return (path) => {
    if (path === "" || path.includes("\0") || path.startsWith("/") !== absolute) return false;
    return matchSegments(matchers, segmentsOf(posix.normalize(path)), 0, 0);
  };
}

type SegmentMatcher = ((segment: string) => boolean) | typeof GLOBSTAR;
const GLOBSTAR = Symbol("**");

function segmentsOf(path: string): string[] {
  return path.split("/").filter((segment) => segment !== "" && segment !== ".");
}

function segmentPattern(segment: string): (text: string) => boolean {
  const regex = new RegExp(
    `^${
      [...segment].map((c) =>
        c === "*" ? ".*" : c === "?" ? "." : c.replace(/[\\^$.|+()[\]{}]/g, "\\$&")
      )
        .join("")
    }$`,
    "s",
  );
  return (text) => text !== ".." && regex.test(text);
}

function matchSegments(
  matchers: readonly SegmentMatcher[],
  segments: readonly string[],
  m: number,
  s: number,
): boolean {
  if (m === matchers.length) return s === segments.length;
  const matcher = matchers[m]!;
  if (matcher === GLOBSTAR) {
    for (let next = s; next <= segments.length; next++) {
      if (matchSegments(matchers, segments, m + 1, next)) return true;
      if (segments[next] === "..") return false;
    }
    return false;
  }
  return s < segments.length && matcher(segments[s]!) &&
    matchSegments(matchers, segments, m + 1, s + 1);
}
