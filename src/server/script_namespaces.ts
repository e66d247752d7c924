/**
 * Which namespaces a script names, guessed from its text, so a run waits only for the
 * upstreams it uses. Kept apart so the AST-based analysis (src/exec/script_analysis.ts) can
 * replace it in one place.
 * @module
 */

/**
 * The namespaces a script names (`tools.x`, `tools["x"]`); undefined (wait for all) when the
 * script indexes `tools` dynamically, searches, describes or reads resources.
 */
export function namespacesUsedBy(
  source: string,
  namespaces: readonly { name: string; identifier: string }[],
): ReadonlySet<string> | undefined {
  if (/\btools\s*\[\s*[^"'\s]|\b(search|describe)\s*\(|\bresources\s*\./.test(source)) {
    return undefined;
  }
  const used = new Set<string>();
  for (const ns of namespaces) {
    const id = ns.identifier.replace(/\$/g, "\\$");
    const name = ns.name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    if (
      new RegExp(`\\btools\\s*\\.\\s*${id}\\b|\\btools\\s*\\[\\s*["'\`]${name}["'\`]`).test(
        source,
      )
    ) {
      used.add(ns.name);
    }
  }
  return used;
}
