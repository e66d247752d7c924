/**
 * The `include`/`exclude` patterns of an `apis` entry: `tag:NAME`, `METHOD /path/*`, `/path/*`
 * or a glob of tool names.
 * @module
 */

/**
 * Whether an operation is kept: it matches some `include` pattern (or there are none) and no
 * `exclude` pattern.
 */
export function operationSelected(
  op: { name: string; method: string; path: string; tags: string[] },
  options: { include: readonly string[]; exclude: readonly string[] },
): boolean {
  const matches = (pattern: string) => {
    if (pattern.startsWith("tag:")) return op.tags.includes(pattern.slice(4));
    const spaced = /^([A-Za-z]+)\s+(\/.*)$/.exec(pattern);
    if (spaced) {
      return spaced[1]!.toLowerCase() === op.method && globMatch(spaced[2]!, op.path);
    }
    if (pattern.startsWith("/")) return globMatch(pattern, op.path);
    return globMatch(pattern, op.name);
  };
  if (options.include.length > 0 && !options.include.some(matches)) return false;
  return !options.exclude.some(matches);
}

/** Matches `text` against a glob where `*` is any run of characters (include/exclude). */
export function globMatch(pattern: string, text: string): boolean {
  const regex = new RegExp(
    `^${pattern.split("*").map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`,
  );
  return regex.test(text);
}
