/**
 * Imports a module by a computed specifier. A literal `import("…")` is part of the graph Deno
 * resolves before the entry runs — for the command table, the server and every npm package,
 * a cost paid on each CLI start; computed, a module costs only when used.
 * @module
 */

/**
 * Imports `path` relative to `base` (the caller's `import.meta.url`); type it with
 * `lazyImport<typeof import("./x.ts")>("./x.ts", import.meta.url)` — a type query adds nothing
 * to the graph.
 */
export function lazyImport<T>(path: string, base: string): Promise<T> {
  return import(new URL(path, base).href);
}
