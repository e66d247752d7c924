/**
 * The project's module graph as Deno resolves it (`deno info --json` over every `.ts` file in
 * `src/`, `tools/` and `test/`), for the checks `deno task check` runs: static, type-only and
 * dynamic imports as Deno sees them, plus the two kinds of edge it cannot see — a
 * `lazyImport("./x.ts", import.meta.url)` call (a computed `import()`, kept out of Deno's graph
 * on purpose so the CLI starts without loading what it may not use) and a process or Worker
 * a product module (`src/`, not a test) starts from `new URL("./x.ts", import.meta.url)`.
 * @module
 */

import { join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/**
 * How one module reaches another: `code` and `type` as Deno reports them, `lazy` through
 * `lazyImport()`, `start` as the entry of a process or Worker it starts.
 */
export type EdgeKind = "code" | "type" | "lazy" | "start";

/** One import (or start) in a module. */
export interface Edge {
  /** The target: a path relative to the project root, or a package/builtin specifier. */
  to: string;
  /** The specifier as written. */
  written: string;
  kind: EdgeKind;
  /** 1-based line of the import. */
  line: number;
}

/** The module graph of a project, keyed by paths relative to its root. */
export interface ProjectGraph {
  /** Absolute path of the project root. */
  root: string;
  /** Every local module with its edges (targets outside the root keep their specifier). */
  modules: Map<string, Edge[]>;
  /** Each module's text, for checks that read call sites. */
  texts: Map<string, string>;
  /** npm package id (`name@version…`) → the ids it depends on, from Deno's resolution. */
  packages: Map<string, string[]>;
  /** Problems met while building the graph: unresolved imports, computed lazy paths. */
  problems: string[];
}

/** The folders of a project whose `.ts` files are the graph's roots. */
export const ROOT_FOLDERS: readonly string[] = ["src", "tools", "test"];

/** Folders never walked (installed packages, test output). */
const SKIPPED = new Set(["node_modules", ".gateway", "artifacts"]);

/** The `exclude` globs of the project's deno.json that name folders or files (no wildcards). */
async function excludedPaths(root: string): Promise<string[]> {
  try {
    const config = JSON.parse(await Deno.readTextFile(join(root, "deno.json")));
    const exclude: unknown = config.exclude;
    if (!Array.isArray(exclude)) return [];
    return exclude.filter((e): e is string => typeof e === "string" && !e.includes("*")).map(
      (e) => e.replace(/\/$/, ""),
    );
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
}

async function tsFiles(root: string, dir: string, excluded: readonly string[]): Promise<string[]> {
  const files: string[] = [];
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(join(root, dir)));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  for (const entry of entries) {
    const path = `${dir}/${entry.name}`;
    if (SKIPPED.has(entry.name) || excluded.includes(path)) continue;
    if (entry.isDirectory) files.push(...await tsFiles(root, path, excluded));
    else if (entry.isFile && entry.name.endsWith(".ts")) files.push(path);
  }
  return files.sort();
}

/** The shape of `deno info --json` this module reads. */
interface DenoInfo {
  modules: {
    specifier: string;
    kind?: string;
    error?: string;
    dependencies?: {
      specifier: string;
      code?: { specifier?: string; error?: string; span: { start: { line: number } } };
      type?: { specifier?: string; error?: string; span: { start: { line: number } } };
    }[];
  }[];
  redirects: Record<string, string>;
  npmPackages: Record<string, { dependencies?: string[] }>;
}

/**
 * Runs `deno info --json` on one module that imports every root; the project's deno.json
 * applies, and npm packages resolve with `lock` (a path under `root`), or with no lock file.
 */
async function denoInfo(
  root: string,
  files: readonly string[],
  lock: string | undefined,
): Promise<DenoInfo> {
  const dir = await Deno.makeTempDir({ prefix: "project_graph_" });
  try {
    const entry = join(dir, "roots.ts");
    await Deno.writeTextFile(
      entry,
      files.map((f) => `import ${JSON.stringify(pathToFileURL(join(root, f)).href)};\n`).join(""),
    );
    let config: string[] = ["--no-config"];
    try {
      await Deno.stat(join(root, "deno.json"));
      config = ["--config", join(root, "deno.json")];
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "info",
        "--json",
        ...config,
        ...(lock === undefined ? ["--no-lock"] : ["--lock", join(root, lock)]),
        entry,
      ],
      cwd: root,
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (out.code !== 0) {
      throw new Error(
        `deno info of the project's modules failed (exit ${out.code}): ` +
          new TextDecoder().decode(out.stderr),
      );
    }
    return JSON.parse(new TextDecoder().decode(out.stdout)) as DenoInfo;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The 1-based line of character `index` in `text`. */
function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/**
 * The `lazyImport(…)` calls in a module's text: each literal path with its line, and the line
 * of each call whose path is not a string literal followed by `import.meta.url`.
 */
export function lazyImportsOf(text: string): { paths: [string, number][]; computed: number[] } {
  const paths: [string, number][] = [];
  const computed: number[] = [];
  for (const match of text.matchAll(/\blazyImport\s*(?=[<(])/g)) {
    let at = match.index + match[0].length;
    if (text[at] === "<") {
      // The type argument (`typeof import("./x.ts")`, an alias) up to its matching `>`.
      for (let depth = 0; at < text.length; at++) {
        if (text[at] === "<") depth++;
        else if (text[at] === ">" && --depth === 0) break;
      }
      at++;
    }
    const call = /^\s*\(\s*(["'])([^"']+)\1\s*,\s*import\.meta\.url\s*,?\s*\)/.exec(text.slice(at));
    if (call) paths.push([call[2]!, lineAt(text, match.index)]);
    else computed.push(lineAt(text, match.index));
  }
  return { paths, computed };
}

/**
 * The modules a file starts as a process or Worker: `new URL("./x.ts", import.meta.url)` on a
 * line that is not a comment.
 */
export function startedModulesOf(text: string): [string, number][] {
  const found: [string, number][] = [];
  text.split("\n").forEach((line, index) => {
    if (/^\s*(?:\*|\/\/)/.test(line)) return;
    for (
      const match of line.matchAll(
        /new URL\(\s*(["'])(\.{1,2}\/[^"']+\.ts)\1\s*,\s*import\.meta\.url\s*\)/g,
      )
    ) {
      found.push([match[2]!, index + 1]);
    }
  });
  return found;
}

/**
 * Builds the graph of every `.ts` module under `src/`, `tools/` and `test/` of `root`; npm
 * specifiers resolve with the lock file `options.lock` (relative to `root`), or with none.
 */
export async function projectGraph(
  root: string,
  options: { lock?: string } = {},
): Promise<ProjectGraph> {
  root = resolve(root);
  const excluded = await excludedPaths(root);
  const files: string[] = [];
  for (const folder of ROOT_FOLDERS) files.push(...await tsFiles(root, folder, excluded));
  const info = await denoInfo(root, files, options.lock);
  const base = pathToFileURL(root).href + "/";
  const local = (specifier: string) =>
    specifier.startsWith(base) ? relative(root, fileURLToPath(specifier)) : null;
  const graph: ProjectGraph = {
    root,
    modules: new Map(),
    texts: new Map(),
    packages: new Map(),
    problems: [],
  };
  for (const [id, pkg] of Object.entries(info.npmPackages)) {
    graph.packages.set(id, pkg.dependencies ?? []);
  }
  for (const module of info.modules) {
    const path = local(module.specifier);
    if (path === null) continue;
    if (module.error !== undefined) {
      graph.problems.push(`${path}: ${module.error}`);
      continue;
    }
    const edges: Edge[] = [];
    for (const dep of module.dependencies ?? []) {
      for (const kind of ["code", "type"] as const) {
        const target = dep[kind];
        if (target === undefined) continue;
        if (target.error !== undefined || target.specifier === undefined) {
          graph.problems.push(
            `${path}:${target.span.start.line + 1}: ${target.error ?? "unresolved import"}`,
          );
          continue;
        }
        const resolved = info.redirects[target.specifier] ?? target.specifier;
        edges.push({
          to: local(resolved) ?? resolved,
          written: dep.specifier,
          kind,
          line: target.span.start.line + 1,
        });
      }
    }
    graph.modules.set(path, edges);
  }
  for (const [path, edges] of graph.modules) {
    const text = await Deno.readTextFile(join(root, path));
    graph.texts.set(path, text);
    const dir = join(root, path, "..");
    const target = (written: string) => relative(root, resolve(dir, written));
    if (edges.some((e) => e.to.endsWith("/lazy_import.ts") && e.kind === "code")) {
      const { paths, computed } = lazyImportsOf(text);
      for (const [written, line] of paths) {
        const to = target(written);
        if (!graph.modules.has(to)) {
          graph.problems.push(`${path}:${line}: lazyImport("${written}") names no module`);
        } else edges.push({ to, written, kind: "lazy", line });
      }
      for (const line of computed) {
        graph.problems.push(
          `${path}:${line}: lazyImport() takes a computed path the layer check cannot follow: ` +
            `pass a string literal and import.meta.url`,
        );
      }
    }
    // Processes the product starts; tests start fixtures, which no check follows.
    const product = path.startsWith("src/") && !path.endsWith("_test.ts");
    for (const [written, line] of product ? startedModulesOf(text) : []) {
      const to = target(written);
      if (!graph.modules.has(to)) {
        graph.problems.push(`${path}:${line}: starts "${written}", which is no module`);
      } else edges.push({ to, written, kind: "start", line });
    }
  }
  return graph;
}

/** The npm package name a resolved `npm:` specifier names (`npm:/@a/b@1.0.0/x` → `@a/b`). */
export function npmPackageName(specifier: string): string | null {
  const match = /^npm:\/?((?:@[^/@]+\/)?[^/@]+)/.exec(specifier);
  return match ? match[1]! : null;
}
