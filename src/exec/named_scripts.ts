/**
 * Named scripts in `ROOT/scripts/**.ts`: listing with the leading JSDoc's
 * description, `@example` and `@param` lines, and resolving a name to a file without ever
 * leaving the scripts directory.
 * @module
 */

import { join, relative, resolve, sep } from "node:path";
import { nearestNames } from "../protocol/names.ts";

/** A named script as `gateway scripts` lists it. */
export interface NamedScript {
  /** Path under `scripts/` without `.ts`, with `/` separators (`reports/daily`). */
  name: string;
  file: string;
  description: string;
  examples: string[];
  params: { name: string; description: string }[];
}

/** A script name that cannot be used; the message says why. */
export class ScriptNameError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ScriptNameError";
  }
}

/** Parses the leading JSDoc block of a script. */
export function parseScriptDoc(source: string): Omit<NamedScript, "name" | "file"> {
  const match = /^\s*(?:#![^\n]*\n\s*)?\/\*\*([\s\S]*?)\*\//.exec(source);
  const description: string[] = [];
  const examples: string[] = [];
  const params: { name: string; description: string }[] = [];
  if (match) {
    let tag: string | null = null;
    for (const raw of match[1]!.split("\n")) {
      const line = raw.replace(/^\s*\* ?/, "").trimEnd();
      const tagMatch = /^@(\w+)\s*(.*)$/.exec(line.trim());
      if (tagMatch) {
        tag = tagMatch[1]!;
        const rest = tagMatch[2]!;
        if (tag === "example" && rest) examples.push(rest);
        if (tag === "param") {
          const p = /^(?:\{[^}]*\}\s*)?(\S+)\s*(?:-\s*)?(.*)$/.exec(rest);
          if (p) params.push({ name: p[1]!, description: p[2] ?? "" });
        }
        continue;
      }
      if (tag === null) description.push(line);
      else if (tag === "example" && line.trim()) examples.push(line.trim());
    }
  }
  return { description: description.join("\n").trim(), examples, params };
}

async function walk(dir: string, base: string, out: string[]): Promise<void> {
  let entries: Deno.DirEntry[];
  try {
    entries = [];
    for await (const entry of Deno.readDir(dir)) entries.push(entry);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory && !entry.name.startsWith(".")) await walk(path, base, out);
    else if (entry.isFile && entry.name.endsWith(".ts") && !entry.name.endsWith("_test.ts")) {
      out.push(relative(base, path));
    }
  }
}

/** Lists every named script under `scriptsDir`, sorted by name. */
export async function listNamedScripts(scriptsDir: string): Promise<NamedScript[]> {
  const files: string[] = [];
  await walk(scriptsDir, scriptsDir, files);
  const scripts: NamedScript[] = [];
  for (const rel of files.sort()) {
    const file = join(scriptsDir, rel);
    const doc = parseScriptDoc(await Deno.readTextFile(file));
    scripts.push({ name: rel.replace(/\.ts$/, "").split(sep).join("/"), file, ...doc });
  }
  return scripts;
}

/**
 * Resolves a script name to its file. Refuses names that are absolute, contain `..`, NUL or
 * backslashes, or resolve outside the directory; an unknown name lists the nearest ones.
 */
export async function resolveNamedScript(scriptsDir: string, name: string): Promise<NamedScript> {
  const clean = name.replace(/\.ts$/, "");
  if (
    clean === "" || clean.includes("\0") || clean.includes("\\") || clean.startsWith("/") ||
    clean.split("/").some((part) => part === ".." || part === "." || part === "") ||
    new TextEncoder().encode(clean).length > 255 || !/^[\p{L}\p{N}_\-./]+$/u.test(clean)
  ) {
    throw new ScriptNameError(
      `Invalid script name "${name}": use a path under scripts/ like "report" or "daily/report"`,
    );
  }
  const base = resolve(scriptsDir);
  const file = resolve(base, `${clean}.ts`);
  if (!file.startsWith(base + sep)) {
    throw new ScriptNameError(`Invalid script name "${name}": it leaves the scripts directory`);
  }
  let real: string;
  try {
    real = await Deno.realPath(file);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    const known = (await listNamedScripts(scriptsDir)).map((s) => s.name);
    const near = nearestNames(clean, known);
    throw new ScriptNameError(
      `No script "${clean}" in "${scriptsDir}"${
        near.length ? `: did you mean ${near.map((n) => `"${n}"`).join(", ")}?` : ""
      } (gateway scripts lists them)`,
    );
  }
  const realBase = await Deno.realPath(base);
  if (!real.startsWith(realBase + sep)) {
    throw new ScriptNameError(
      `Invalid script name "${name}": it links outside the scripts directory`,
    );
  }
  const doc = parseScriptDoc(await Deno.readTextFile(real));
  return { name: clean, file: real, ...doc };
}
