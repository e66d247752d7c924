/**
 * Bundled tool module `fs`: read, write, list and stat text files, confined to root directories
 * (settings `{"roots": [...]}`, default `$GATEWAY_DATA_DIR/files`), symlinks included. Past 400
 * lines because the confinement check is kept beside the tools it guards.
 * @module
 */

import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

/** Arguments of `fs.read`. */
export interface ReadArgs {
  /** File to read: relative to the first root, or absolute inside a root. */
  path: string;
}

/** Arguments of `fs.write`. */
export interface WriteArgs {
  /** File to write: relative to the first root, or absolute inside a root. */
  path: string;
  /** Text to write, stored as UTF-8. */
  content: string;
  /** Add to the end of the file instead of replacing it. Default: false. */
  append?: boolean;
}

/** What `fs.write` did. */
export interface WriteResult {
  /** Absolute path of the file written (symlinks resolved). */
  path: string;
  /** UTF-8 bytes written by this call. */
  bytes: number;
  /** True when the file did not exist before. */
  created: boolean;
}

/** Arguments of `fs.list`. */
export interface ListArgs {
  /** Directory to list: relative to the first root, or absolute inside a root. Default: the first root. */
  path?: string;
}

/** Kind of a directory entry; `symlink` entries are not followed by `list`. */
export type EntryType = "file" | "directory" | "symlink" | "other";

/** One entry of a directory. */
export interface DirEntry {
  /** File name inside the directory. */
  name: string;
  /** What the entry is. */
  type: EntryType;
}

/** Arguments of `fs.stat`. */
export interface StatArgs {
  /** File or directory to describe: relative to the first root, or absolute inside a root. */
  path: string;
}

/** Facts about a file or directory (a symlink is described by its target). */
export interface FileInfo {
  /** Absolute path (symlinks resolved). */
  path: string;
  /** What the path is after following symlinks. */
  type: EntryType;
  /** Size in bytes. */
  size: number;
  /** Last modification time, ISO 8601, or null when the system does not say. */
  modified: string | null;
  /** True when the path given is itself a symlink. */
  symlink: boolean;
}

/** Settings read from `GATEWAY_TOOL_SETTINGS` (gateway.json `tools.fs.settings`). */
interface FsSettings {
  /** Directories the tools may touch; relative ones resolve against the tool host's cwd. */
  roots?: string[];
  /** Largest file `read` returns, in bytes. Default: 10485760 (10 MiB). */
  maxReadBytes?: number;
}

const DEFAULT_MAX_READ_BYTES = 10 * 1024 * 1024;

/**
 * Reads a UTF-8 text file inside the roots.
 *
 * @param args The file to read.
 * @returns The file's text.
 */
export async function read(args: ReadArgs): Promise<string> {
  const input = argsObject(args, { tool: "read", allowed: ["path"] });
  const config = await loadSettings();
  const path = await confine(input["path"], { tool: "read", config });
  const info = await fsCall(() => Deno.stat(path), { verb: "read", given: input["path"], path });
  if (info.isDirectory) {
    throw new Error(`Cannot read path "${String(input["path"])}": it is a directory; use fs.list`);
  }
  if (info.size > config.maxReadBytes) {
    throw new Error(
      `Cannot read path "${String(input["path"])}": it has ${info.size} bytes, more than ` +
        `maxReadBytes ${config.maxReadBytes} (raise it in settings of tools.fs)`,
    );
  }
  const bytes = await fsCall(() => Deno.readFile(path), { verb: "read", given: input["path"] });
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch (error) {
    throw new Error(`Cannot read path "${String(input["path"])}": it is not UTF-8 text`, {
      cause: error,
    });
  }
}

/**
 * Writes a UTF-8 text file inside the roots, creating missing parent directories.
 *
 * @param args The file, its new text, and whether to append.
 * @returns Where the file is, how many bytes were written, and whether it is new.
 */
export async function write(args: WriteArgs): Promise<WriteResult> {
  const input = argsObject(args, { tool: "write", allowed: ["path", "content", "append"] });
  const content = input["content"];
  if (typeof content !== "string") {
    throw new TypeError(
      `Invalid arguments for fs.write: "content" must be a string (JSON.stringify data first)`,
    );
  }
  const append = input["append"] ?? false;
  if (typeof append !== "boolean") {
    throw new TypeError(`Invalid arguments for fs.write: "append" must be a boolean`);
  }
  const config = await loadSettings();
  const path = await confine(input["path"], { tool: "write", config });
  const context = { verb: "write", given: input["path"] };
  const created = !(await pathExists(path));
  await fsCall(() => Deno.mkdir(dirname(path), { recursive: true }), context);
  const bytes = new TextEncoder().encode(content);
  await fsCall(() => Deno.writeFile(path, bytes, { append }), context);
  return { path, bytes: bytes.length, created };
}

/**
 * Lists a directory inside the roots.
 *
 * @param args The directory; the first root when omitted.
 * @returns Its entries sorted by name.
 */
export async function list(args?: ListArgs): Promise<DirEntry[]> {
  const input = argsObject(args ?? {}, { tool: "list", allowed: ["path"] });
  const config = await loadSettings();
  const path = await confine(input["path"] ?? ".", { tool: "list", config });
  const context = { verb: "list", given: input["path"] ?? ".", path };
  const info = await fsCall(() => Deno.stat(path), context);
  if (!info.isDirectory) {
    throw new Error(
      `Cannot list path "${String(context.given)}": it is not a directory; use fs.stat`,
    );
  }
  const entries: DirEntry[] = [];
  await fsCall(async () => {
    for await (const entry of Deno.readDir(path)) {
      entries.push({ name: entry.name, type: entryType(entry) });
    }
  }, context);
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * Describes a file or directory inside the roots.
 *
 * @param args The path to describe.
 * @returns Its type, size, modification time and whether it is a symlink.
 */
export async function stat(args: StatArgs): Promise<FileInfo> {
  const input = argsObject(args, { tool: "stat", allowed: ["path"] });
  const config = await loadSettings();
  const given = input["path"];
  const path = await confine(given, { tool: "stat", config });
  const context = { verb: "stat", given };
  const info = await fsCall(() => Deno.stat(path), { ...context, path });
  const link = await fsCall(() => Deno.lstat(lexicalPath(String(given), config)), context);
  return {
    path,
    type: entryType(info),
    size: info.size,
    modified: info.mtime?.toISOString() ?? null,
    symlink: link.isSymlink,
  };
}

/** A root as configured (absolute) and with symlinks resolved. */
interface Root {
  path: string;
  real: string;
}

interface Settings {
  roots: Root[];
  maxReadBytes: number;
}

/** Reads `GATEWAY_TOOL_SETTINGS` at call time and resolves the roots (creating the default). */
async function loadSettings(): Promise<Settings> {
  const where = "Cannot use the fs tools: GATEWAY_TOOL_SETTINGS";
  const text = Deno.env.get("GATEWAY_TOOL_SETTINGS") ?? "";
  let raw: unknown = {};
  if (text.trim() !== "") {
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new Error(`${where} is not valid JSON: ${messageOf(error)}`, { cause: error });
    }
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new Error(`${where} must be a JSON object like {"roots": ["./data"]}`);
  }
  for (const key of Object.keys(raw)) {
    if (key !== "roots" && key !== "maxReadBytes") {
      throw new Error(`${where} has unknown key "${key}" (expected "roots", "maxReadBytes")`);
    }
  }
  const { roots, maxReadBytes } = raw as FsSettings;
  if (
    maxReadBytes !== undefined &&
    (typeof maxReadBytes !== "number" || !Number.isInteger(maxReadBytes) || maxReadBytes < 0)
  ) {
    throw new Error(`${where}: "maxReadBytes" must be a non-negative integer`);
  }
  let paths: string[];
  if (roots === undefined) {
    paths = [join(dataDir(), "files")];
    await Deno.mkdir(paths[0] as string, { recursive: true });
  } else if (
    !Array.isArray(roots) || roots.length === 0 ||
    !roots.every((r) => typeof r === "string" && r !== "" && !r.includes("\0"))
  ) {
    throw new Error(`${where}: "roots" must be a non-empty array of directory paths`);
  } else {
    paths = roots.map((r) => resolve(r));
  }
  const resolved: Root[] = [];
  for (const path of paths) {
    try {
      resolved.push({ path, real: await Deno.realPath(path) });
    } catch (error) {
      throw new Error(`Cannot use fs root "${path}": ${messageOf(error)}`, { cause: error });
    }
  }
  return { roots: resolved, maxReadBytes: maxReadBytes ?? DEFAULT_MAX_READ_BYTES };
}

function dataDir(): string {
  const dir = Deno.env.get("GATEWAY_DATA_DIR");
  if (dir === undefined || dir === "") {
    throw new Error(
      "Cannot find the default fs root: GATEWAY_DATA_DIR is not set; the gateway sets it for " +
        "tool hosts (or configure settings.roots of tools.fs)",
    );
  }
  return resolve(dir);
}

/** The absolute path a request names, before symlinks: relative paths start at the first root. */
function lexicalPath(given: string, config: Settings): string {
  return resolve(config.roots[0]?.path ?? ".", given);
}

/**
 * Resolves a requested path to the real path to operate on, refusing one outside every root:
 * by `..`, by being absolute elsewhere, or through a symlink (checked on the nearest existing
 * ancestor, so a file to be created cannot land outside). A symlink swapped in between this
 * check and the operation is not caught; the roots are meant for honest scripts, not for
 * racing attackers who can already write inside them.
 */
async function confine(
  given: unknown,
  options: { tool: string; config: Settings },
): Promise<string> {
  if (typeof given !== "string" || given === "") {
    throw new TypeError(
      `Invalid arguments for fs.${options.tool}: "path" must be a non-empty string`,
    );
  }
  if (given.includes("\0")) {
    throw new TypeError(
      `Invalid arguments for fs.${options.tool}: "path" contains a NUL character`,
    );
  }
  const { roots } = options.config;
  const allowed = roots.map((r) => `"${r.path}"`).join(", ");
  const lexical = lexicalPath(given, options.config);
  if (!roots.some((r) => isInside(lexical, r.path) || isInside(lexical, r.real))) {
    throw new Error(
      `Cannot ${options.tool} path "${given}": it is outside the allowed roots ${allowed} ` +
        "(add a root to settings.roots of tools.fs in gateway.json)",
    );
  }
  // Walk up to the nearest ancestor that exists, then resolve its symlinks.
  let existing = lexical;
  const missing: string[] = [];
  for (;;) {
    try {
      await Deno.lstat(existing);
      break;
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory)) {
        throw new Error(`Cannot ${options.tool} path "${given}": ${messageOf(error)}`, {
          cause: error,
        });
      }
      if (dirname(existing) === existing) throw error;
      missing.unshift(basename(existing));
      existing = dirname(existing);
    }
  }
  let real: string;
  try {
    real = join(await Deno.realPath(existing), ...missing);
  } catch (error) {
    throw new Error(
      `Cannot ${options.tool} path "${given}": "${existing}" is a symlink that does not resolve`,
      { cause: error },
    );
  }
  if (!roots.some((r) => isInside(real, r.real))) {
    throw new Error(
      `Cannot ${options.tool} path "${given}": it resolves to "${real}", outside the allowed ` +
        `roots ${allowed}`,
    );
  }
  return real;
}

function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

async function pathExists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

function entryType(info: { isFile: boolean; isDirectory: boolean; isSymlink: boolean }): EntryType {
  return info.isFile
    ? "file"
    : info.isDirectory
    ? "directory"
    : info.isSymlink
    ? "symlink"
    : "other";
}

/**
 * Runs a file-system call, turning Deno's errors into messages that name the requested path;
 * with the resolved `path`, a missing one also lists what its directory holds, nearest first.
 */
async function fsCall<T>(
  call: () => Promise<T>,
  context: { verb: string; given: unknown; path?: string },
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const detail = error instanceof Deno.errors.NotFound
      ? `no such file or directory${context.path ? await siblings(context.path) : ""}`
      : error instanceof Deno.errors.IsADirectory
      ? "it is a directory"
      : error instanceof Deno.errors.NotADirectory
      ? "a parent is not a directory"
      : error instanceof Deno.errors.PermissionDenied
      ? `permission denied (${messageOf(error)})`
      : messageOf(error);
    throw new Error(`Cannot ${context.verb} path "${String(context.given)}": ${detail}`, {
      cause: error,
    });
  }
}

/** Most entries a "no such file" message lists. */
const MAX_SIBLINGS = 10;

/** What the directory of a missing `path` holds, nearest names first; "" when unreadable. */
async function siblings(path: string): Promise<string> {
  const dir = dirname(path);
  const wanted = basename(path).toLowerCase();
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      names.push(entry.isDirectory ? `${entry.name}/` : entry.name);
      if (names.length > 1000) break;
    }
  } catch {
    return "";
  }
  if (names.length === 0) return " (its directory is empty)";
  const score = (name: string) => {
    const lower = name.toLowerCase();
    let common = 0;
    while (common < lower.length && lower[common] === wanted[common]) common++;
    return -common;
  };
  const sorted = names.sort((a, b) => score(a) - score(b) || (a < b ? -1 : a > b ? 1 : 0));
  const shown = sorted.slice(0, MAX_SIBLINGS).map((name) => `"${name}"`).join(", ");
  return ` (its directory holds: ${shown}${names.length > MAX_SIBLINGS ? ", …" : ""})`;
}

/** Checks the argument is a plain object with only the properties the tool knows. */
function argsObject(
  args: unknown,
  options: { tool: string; allowed: readonly string[] },
): Record<string, unknown> {
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    throw new TypeError(`Invalid arguments for fs.${options.tool}: expected an object`);
  }
  for (const name of Object.keys(args)) {
    if (!options.allowed.includes(name)) {
      throw new TypeError(
        `Invalid arguments for fs.${options.tool}: unknown property "${name}" (expected ${
          options.allowed.map((a) => `"${a}"`).join(", ")
        })`,
      );
    }
  }
  return args as Record<string, unknown>;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
