/**
 * Deno's runtime type declarations (`deno types`) for the script checker: asked of the `deno`
 * binary once per Deno version and cached on disk, so the checker knows `Deno.*`, `fetch` & co.
 * @module
 */

/** Options of {@linkcode loadDenoLibTypes}. */
export interface DenoLibTypesOptions {
  /** Directory that holds the cached declarations; created when missing. */
  cacheDir: string;
  /**
   * The `deno` executable asked for `deno types`.
   * @default {Deno.execPath()}
   */
  denoPath?: string;
  /**
   * Version that keys the cache file; pass it with `denoPath` when that binary is another version.
   * @default {Deno.version.deno}
   */
  denoVersion?: string;
}

/** A marker every real `deno types` output holds; a cache file without it is regenerated. */
const DENO_NAMESPACE_MARKER = "declare namespace Deno";

/**
 * Where the declarations of one Deno version are cached, so callers (and tests) can find or
 * remove the file without knowing the naming scheme.
 */
export function denoLibTypesPath(cacheDir: string, denoVersion: string): string {
  const safeVersion = denoVersion.replace(/[^0-9A-Za-z._+-]/g, "_");
  return `${cacheDir.replace(/\/+$/, "")}/deno-types-${safeVersion}.d.ts`;
}

/**
 * Returns the output of `deno types` for the running Deno version, from the disk cache when a
 * valid copy is there, else by running `deno types` once and caching the text (written to a
 * temporary file and renamed, so concurrent servers never read half a file).
 *
 * @example Load the declarations for the checker
 * ```ts ignore
 * const denoTypes = await loadDenoLibTypes({ cacheDir: "/tmp/gateway-cache" });
 * ```
 */
export async function loadDenoLibTypes(options: DenoLibTypesOptions): Promise<string> {
  const denoVersion = options.denoVersion ?? Deno.version.deno;
  const path = denoLibTypesPath(options.cacheDir, denoVersion);
  const cached = await readIfPresent(path);
  if (cached !== null && cached.includes(DENO_NAMESPACE_MARKER)) return cached;

  const denoPath = options.denoPath ?? Deno.execPath();
  const text = await runDenoTypes(denoPath);
  await Deno.mkdir(options.cacheDir, { recursive: true });
  const temporary = `${path}.${crypto.randomUUID()}.tmp`;
  try {
    await Deno.writeTextFile(temporary, text);
    await Deno.rename(temporary, path);
  } catch (error) {
    await Deno.remove(temporary).catch(() => {});
    throw new Error(`Cannot cache Deno type declarations: writing "${path}" failed`, {
      cause: error,
    });
  }
  return text;
}

/**
 * Globals Deno takes from its built-in `node` lib (its bundled `@types/node`), which
 * `deno types` does not print: timers (typed as Node's `Timeout`, as `deno check` does),
 * `setImmediate`, `process`, `Buffer` and `global`. Timers are typed like `@types/node`;
 * `process` and `Buffer` are left untyped (`any` in this declaration text) so scripts that use
 * them are neither blocked nor misled by a partial copy of Node's types.
 */
const NODE_GLOBALS = `
// --- gateway: globals from Deno's built-in "node" lib, which \`deno types\` omits ---
declare namespace NodeJS {
  interface Timer {
    hasRef(): boolean;
    ref(): this;
    refresh(): this;
    unref(): this;
    [Symbol.toPrimitive](): number;
  }
  interface Timeout extends Timer {
    close(): this;
    [Symbol.dispose](): void;
  }
  interface Immediate {
    hasRef(): boolean;
    ref(): this;
    unref(): this;
    [Symbol.dispose](): void;
  }
}
declare function setTimeout<TArgs extends any[]>(
  callback: (...args: TArgs) => void,
  delay?: number,
  ...args: TArgs
): NodeJS.Timeout;
declare function setTimeout(callback: (_: void) => void, delay?: number): NodeJS.Timeout;
declare function clearTimeout(timeout: NodeJS.Timeout | string | number | undefined | null): void;
declare function setInterval<TArgs extends any[]>(
  callback: (...args: TArgs) => void,
  delay?: number,
  ...args: TArgs
): NodeJS.Timeout;
declare function setInterval(callback: (_: void) => void, delay?: number): NodeJS.Timeout;
declare function clearInterval(timeout: NodeJS.Timeout | string | number | undefined | null): void;
declare function setImmediate<TArgs extends any[]>(
  callback: (...args: TArgs) => void,
  ...args: TArgs
): NodeJS.Immediate;
declare function setImmediate(callback: (_: void) => void): NodeJS.Immediate;
declare function clearImmediate(immediate: NodeJS.Immediate | undefined | null): void;
declare var process: any;
declare var Buffer: any;
declare var global: typeof globalThis;
// Node built-in modules (\`node:fs\` …) are typed by Deno's embedded @types/node, which
// \`deno types\` does not print either: known here as untyped modules, so importing them is
// never refused; a script importing them is then also checked by \`deno check\` itself
// (deno_check_oracle.ts), which types them.
declare module "node:*";
`;

/**
 * Turns `deno types` output into a file an ordinary TypeScript program accepts. The
 * `/// <reference lib="deno.*" />` and `node` lines name libs only Deno's own compiler knows;
 * the `deno.*` contents are already concatenated in the output, so those lines are blanked
 * (line numbers kept), and the globals Deno takes from its `node` lib are appended.
 * `esnext` references stay: the bundled TypeScript has those libs.
 */
export function toCheckerDeclarations(denoTypes: string): string {
  const blanked = withoutUnstable(denoTypes).replace(
    /^[ \t]*\/\/\/[ \t]*<reference[ \t]+lib="(?:deno\.[^"]*|node)"[ \t]*\/>[ \t]*$/gm,
    "",
  );
  return `${blanked}\n${NODE_GLOBALS}`;
}

/** Marks the start of a lib file in `deno types` output. */
const LIB_FILE_START = /^\/\/\/[ \t]*<reference[ \t]+no-default-lib="true"[ \t]*\/>[ \t]*$/gm;

/**
 * Whether a lib file of `deno types` is `lib.deno.unstable`: among Deno's libs it references
 * only `deno.ns` (the window and shared-globals libs reference several).
 */
function isUnstableLib(file: string): boolean {
  const libs = [...file.matchAll(/^\/\/\/[ \t]*<reference[ \t]+lib="(deno\.[^"]*)"/gm)].map(
    (match) => match[1],
  );
  return libs.length === 1 && libs[0] === "deno.ns";
}

/**
 * `deno types` without `lib.deno.unstable` (see `isUnstableLib`):
 * `Deno.openKv`, `Deno.cron`, `Deno.bundle` … exist only under `--unstable-*` flags, which a
 * runner never gets, so a script using them must not pass the check — and their declarations
 * (about a fifth of the text) need not sit in the checker's memory.
 */
export function withoutUnstable(denoTypes: string): string {
  const starts = [...denoTypes.matchAll(LIB_FILE_START)].map((match) => match.index);
  const kept: string[] = [];
  let previous = 0;
  for (const start of [...starts.slice(1), denoTypes.length]) {
    const file = denoTypes.slice(previous, start);
    if (!isUnstableLib(file)) kept.push(file);
    previous = start;
  }
  return kept.join("");
}

async function readIfPresent(path: string): Promise<string | null> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw new Error(`Cannot read cached Deno type declarations "${path}"`, { cause: error });
  }
}

async function runDenoTypes(denoPath: string): Promise<string> {
  let output: Deno.CommandOutput;
  try {
    output = await new Deno.Command(denoPath, {
      args: ["types"],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).output();
  } catch (error) {
    throw new Error(`Cannot obtain Deno type declarations: running "${denoPath} types" failed`, {
      cause: error,
    });
  }
  const text = new TextDecoder().decode(output.stdout);
  if (!output.success || !text.includes(DENO_NAMESPACE_MARKER)) {
    const stderr = new TextDecoder().decode(output.stderr).trim().slice(0, 500);
    throw new Error(
      `Cannot obtain Deno type declarations: "${denoPath} types" exited with code ${output.code}` +
        (stderr ? `: ${stderr}` : " and printed no declarations"),
    );
  }
  return text;
}
