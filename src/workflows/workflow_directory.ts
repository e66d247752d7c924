/**
 * Where workflow files live: `ROOT/workflows`, names versus paths, and listing the folder.
 * @module
 */

import { basename, dirname, extname, isAbsolute, join, resolve } from "node:path";
import { WorkflowError } from "./workflow_error.ts";

/** The folder of a root's named workflows. */
export function workflowDirectory(root: string): string {
  return join(root, "workflows");
}

/**
 * Finds the workflow file `start` means: `file` as a path from `cwd` when it exists, else (for a
 * bare name) `ROOT/workflows/NAME`, `NAME.yaml` or `NAME.yml`. A miss is a `NotFound`
 * {@linkcode WorkflowError} listing the workflows there are.
 */
export async function resolveWorkflowFile(
  file: string,
  options: { root: string; cwd: string },
): Promise<string> {
  const { root, cwd } = options;
  if (file.trim() === "") {
    throw new WorkflowError("BadArgument", "Cannot start workflow: no file or name given");
  }
  const asPath = resolve(cwd, file);
  const looksLikePath = isAbsolute(file) || file.includes("/") || file.includes("\\");
  const directory = workflowDirectory(root);
  const candidates = looksLikePath ? [asPath] : [
    asPath,
    join(directory, file),
    join(directory, `${file}.yaml`),
    join(directory, `${file}.yml`),
  ];
  for (const candidate of candidates) {
    if (await isFile(candidate)) return candidate;
  }
  const available = (await listWorkflowFiles(directory)).map(workflowName);
  throw new WorkflowError(
    "NotFound",
    looksLikePath
      ? `Cannot find workflow "${file}": no file "${asPath}"`
      : `Cannot find workflow "${file}": no file "${asPath}", and no "${file}", "${file}.yaml" or "${file}.yml" in "${directory}" (available: ${
        available.length === 0 ? "none" : available.join(", ")
      })`,
  );
}

/**
 * How a hint should name `file` for `gateway workflow start`: the bare name when it lies in the
 * root's folder (`review`), else the path, quoted when it needs quoting.
 */
export function workflowFileArgument(file: string, root: string): string {
  const name = dirname(file) === workflowDirectory(root) ? workflowName(file) : file;
  return /^[A-Za-z0-9._:/@+-]+$/.test(name) ? name : JSON.stringify(name);
}

/** A workflow's name: its file name without `.yaml`/`.yml` (`review` for `review.yaml`). */
export function workflowName(path: string): string {
  const base = basename(path);
  const ext = extname(base);
  return ext === ".yaml" || ext === ".yml" ? base.slice(0, -ext.length) : base;
}

/** The `.yaml` and `.yml` files directly in `directory`, sorted; none when it does not exist. */
export async function listWorkflowFiles(directory: string): Promise<string[]> {
  const files: string[] = [];
  try {
    for await (const entry of Deno.readDir(directory)) {
      if (entry.isFile && /\.ya?ml$/.test(entry.name)) files.push(join(directory, entry.name));
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return files.sort();
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}
