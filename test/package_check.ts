/**
 * Keeps the packages a user downloads to the product's own. Deno fetches every npm package of
 * deno.lock the first time a program of the project needs one, so a package only tests use
 * must be in neither deno.json's import map nor deno.lock: tests import it by full
 * `npm:name@version` specifier and resolve it with their own lock, `test/deno.lock` (the
 * product's resolutions plus the tests'), which `deno task test` and `deno task check` pass.
 * @module
 */

import { isDeepStrictEqual } from "node:util";
import { join } from "node:path";
import { npmPackageName, type ProjectGraph } from "./project_graph.ts";

/** The programs a user runs: the full CLI and the installed command's entry. */
export const PRODUCT_ENTRIES: readonly string[] = ["src/main.ts", "src/cli/fast_main.ts"];

/** The lock file the tests resolve their packages with, relative to the project root. */
export const TEST_LOCK = "test/deno.lock";

/**
 * The modules of the product: everything {@linkcode PRODUCT_ENTRIES} import, load lazily or
 * start as a process or Worker, transitively.
 */
export function productModules(graph: ProjectGraph): Set<string> {
  const found = new Set<string>();
  const pending = PRODUCT_ENTRIES.filter((entry) => graph.modules.has(entry));
  for (const entry of pending) found.add(entry);
  while (pending.length > 0) {
    for (const edge of graph.modules.get(pending.pop()!) ?? []) {
      if (!graph.modules.has(edge.to) || found.has(edge.to)) continue;
      found.add(edge.to);
      pending.push(edge.to);
    }
  }
  return found;
}

/** Each npm package the product imports, with one module that imports it. */
export function productPackages(graph: ProjectGraph): Map<string, string> {
  const packages = new Map<string, string>();
  for (const file of [...productModules(graph)].sort()) {
    for (const edge of graph.modules.get(file) ?? []) {
      const name = npmPackageName(edge.to);
      if (name !== null && !packages.has(name)) packages.set(name, file);
    }
  }
  return packages;
}

/** `npm:/hono@4.13.19/` → `npm:hono@4.13.19` (how deno.lock keys a specifier). */
function lockKeyOf(value: string): string {
  return value.replace(/^(npm|jsr):\//, "$1:").replace(/\/$/, "");
}

/**
 * A lock entry with every dependency named with its version: a lock names a dependency bare
 * when it holds one version of it and with `@version` when it holds several, so the same
 * resolution reads differently in the product's lock and in the tests' larger one.
 */
function qualifiedEntry(lock: Lock, entry: LockEntry): LockEntry {
  const versions = Object.keys(lock.npm ?? {});
  const qualify = (dependency: string): string => {
    if (dependency.lastIndexOf("@") > 0) return dependency;
    return versions.find((id) => id.startsWith(`${dependency}@`)) ?? dependency;
  };
  return {
    ...entry,
    ...(entry.dependencies ? { dependencies: entry.dependencies.map(qualify) } : {}),
    ...(entry.optionalDependencies
      ? { optionalDependencies: entry.optionalDependencies.map(qualify) }
      : {}),
  };
}

/** One npm package's entry in a lock file. */
type LockEntry = { dependencies?: string[]; optionalDependencies?: string[] };

/** The parts of deno.lock this check reads. */
export interface Lock {
  specifiers?: Record<string, string>;
  npm?: Record<string, LockEntry>;
}

/** `name@1.0.0_peer@2.0.0` → `name`. */
function nameOfId(id: string): string {
  return id.slice(0, id.indexOf("@", 1));
}

/**
 * The npm packages (lock ids) a lock's specifiers need, transitively: what Deno fetches on a
 * first run. A dependency names a lock id, or a bare name when the lock holds one version.
 */
export function lockClosure(lock: Lock): Set<string> {
  const npm = lock.npm ?? {};
  const byName = new Map<string, string[]>();
  for (const id of Object.keys(npm)) {
    byName.set(nameOfId(id), [...byName.get(nameOfId(id)) ?? [], id]);
  }
  const idOf = (dep: string) => dep in npm ? dep : byName.get(dep)?.[0];
  const found = new Set<string>();
  const pending = Object.entries(lock.specifiers ?? {}).filter(([key]) => key.startsWith("npm:"))
    .map(([key, version]) => `${npmPackageName(key)}@${version}`);
  while (pending.length > 0) {
    const id = pending.pop()!;
    if (found.has(id) || !(id in npm)) continue;
    found.add(id);
    for (const dep of [...npm[id]!.dependencies ?? [], ...npm[id]!.optionalDependencies ?? []]) {
      const next = idOf(dep);
      if (next !== undefined) pending.push(next);
    }
  }
  return found;
}

async function readJson<T>(path: string): Promise<T | null> {
  try {
    return JSON.parse(await Deno.readTextFile(path)) as T;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw new Error(`Cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * One message per package a user would download that the product does not use, and per
 * resolution the tests' lock holds differently from the product's; empty when clean.
 */
export async function packageProblems(graph: ProjectGraph): Promise<string[]> {
  const config = await readJson<{ imports?: Record<string, string> }>(
    join(graph.root, "deno.json"),
  );
  const imports = config?.imports ?? {};
  const used = productPackages(graph);
  const problems: string[] = [];
  for (const [key, value] of Object.entries(imports)) {
    const name = npmPackageName(value);
    if (name === null || used.has(name)) continue;
    problems.push(
      `deno.json imports "${key}" (${value}), which the product (${
        PRODUCT_ENTRIES.join(", ")
      } and what they load or start) never imports: Deno would fetch it on a user's first ` +
        `run. Import it in the tests as "${lockKeyOf(value)}" and remove it from "imports"`,
    );
  }
  const lock = await readJson<Lock>(join(graph.root, "deno.lock"));
  if (lock === null) return problems;
  const imported = new Set(Object.values(imports).map(lockKeyOf));
  for (const specifier of Object.keys(lock.specifiers ?? {})) {
    if (imported.has(specifier)) continue;
    problems.push(
      `deno.lock pins "${specifier}", which deno.json does not import: Deno fetches every ` +
        `package of deno.lock on a user's first run. A test run without --lock ${TEST_LOCK} ` +
        `wrote it there (deno task test passes it): restore deno.lock (git checkout deno.lock)`,
    );
  }
  const needed = lockClosure(lock);
  for (const id of Object.keys(lock.npm ?? {})) {
    if (needed.has(id)) continue;
    problems.push(
      `deno.lock holds npm package ${id}, which none of its specifiers needs: Deno would ` +
        `fetch it on a user's first run; restore deno.lock (git checkout deno.lock)`,
    );
  }
  const testLock = await readJson<Lock>(join(graph.root, TEST_LOCK));
  if (testLock === null) {
    problems.push(
      `${TEST_LOCK} is missing: the tests resolve their packages with it (copy deno.lock ` +
        `there, then deno task check and deno task test add the tests' own packages)`,
    );
    return problems;
  }
  const differs = [
    ...Object.entries(lock.specifiers ?? {}).filter(([key, value]) =>
      testLock.specifiers?.[key] !== value
    ).map(([key]) => key),
    ...Object.entries(lock.npm ?? {}).filter(([key, value]) => {
      const other = testLock.npm?.[key];
      return other === undefined ||
        !isDeepStrictEqual(qualifiedEntry(testLock, other), qualifiedEntry(lock, value));
    }).map(([key]) => `npm package ${key}`),
  ];
  for (const what of differs) {
    problems.push(
      `${TEST_LOCK} does not hold deno.lock's resolution of ${what}, so the tests would run ` +
        `other package versions than a user gets: copy deno.lock's entries for it into ` +
        `${TEST_LOCK} (or copy deno.lock over it; deno task check and deno task test add the ` +
        `tests' own packages back)`,
    );
  }
  return problems;
}
