/**
 * The warm script checker: a long-lived TypeScript language service
 * over in-memory files (Deno's declarations, the rendered script globals, the script), so a
 * type check before a run costs milliseconds instead of a cold `deno check`.
 * @module
 */

import { basename, dirname, join } from "node:path";
import type Ts from "typescript";
import type { Diagnostic } from "../protocol/run_document.ts";
import { toCheckerDeclarations } from "./deno_lib_types.ts";
import { catalogueFromGlobals, type CheckCatalogue, explainDiagnostic } from "./check_hints.ts";
import {
  lineStarts,
  offsetToPosition,
  type PreparedScript,
  sourceOf,
  toSourceOffset,
} from "./script_transform.ts";

type TypeScript = typeof Ts;

/** Options of {@linkcode ScriptChecker.create}. */
export interface ScriptCheckerOptions {
  /** Output of `deno types` (see `loadDenoLibTypes`), so scripts may use `Deno.*`, `fetch` … */
  denoTypes: string;
  /**
   * Declarations of the script globals (`tools`, `stdin()`, `args` …), as a global `.d.ts`.
   * @default {""}
   */
  globals?: string;
}

/**
 * Diagnostic codes never reported: an import the in-memory host cannot see ("Cannot find
 * module …", missing declaration file). Whether such an import works is decided when the run
 * starts (remote and npm imports are off by default), so the checker does not guess.
 */
const IGNORED_CODES: ReadonlySet<number> = new Set([2307, 2792, 7016]);

/**
 * Implicit-`any` diagnostics (TS7005–TS7099: "Parameter 'row' implicitly has an 'any' type",
 * "Element implicitly has an 'any' type" …) are dropped by code rather than by turning
 * `noImplicitAny` off, which would change inference (`const a = []` would become `never[]`).
 * An untyped helper parameter runs fine, so it must not stop a run.
 */
function isImplicitAny(code: number): boolean {
  return code >= 7000 && code < 7100;
}

const DIRECTORY = "/gateway";
const DENO_FILE = `${DIRECTORY}/deno.d.ts`;
const GLOBALS_FILE = `${DIRECTORY}/globals.d.ts`;
const RUNNER_FILE = `${DIRECTORY}/runner.d.ts`;
const SCRIPT_FILE = `${DIRECTORY}/script.ts`;
/** Where the checker's host serves TypeScript's lib files (read from the npm package). */
const LIB_DIRECTORY = "/node_modules/typescript/lib";
const WARM_UP_SCRIPT = [
  "const text: string = await Promise.resolve(Deno.args.join(' '));",
  "console.log(text, new URL('file:///x').pathname, JSON.stringify({ text }));",
].join("\n");

/**
 * Compiler options for model-written scripts, chosen to catch real mistakes (wrong tool names,
 * wrong argument shapes, `null` used as a value) without blocking scripts that run fine:
 *
 * - Every script is a module (`moduleDetection: force`), so top-level `await` works and its
 *   declarations never clash with the globals; target, module and lib are ESNext.
 * - `strict` as `deno check` has it (so inference is Deno's: `const a = []; a.push(1)` is
 *   fine), with implicit-`any` errors dropped by code (see `isImplicitAny`), and
 *   `useUnknownInCatchVariables: false` (`catch (e) { e.message }` is what models write).
 * - Unused labels and unreachable code are not errors; `.ts` extensions may be imported.
 */
function compilerOptions(ts: TypeScript): Ts.CompilerOptions {
  return {
    target: ts.ScriptTarget.ESNext,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    moduleDetection: ts.ModuleDetectionKind.Force,
    lib: ["lib.esnext.d.ts"],
    types: [],
    strict: true,
    useUnknownInCatchVariables: false,
    allowUnusedLabels: true,
    allowUnreachableCode: true,
    allowImportingTsExtensions: true,
    noEmit: true,
    skipDefaultLibCheck: true,
  };
}

/**
 * Type-checks scripts against Deno's API and the gateway's script globals with a warm
 * TypeScript language service. The first check builds the program (about 0.2–1 s); later ones
 * re-check only the script and take a few milliseconds. Changing the globals bumps their
 * version, so the next check picks them up incrementally.
 *
 * Checking blocks the thread it runs on: a server uses `ScriptCheckerWorker`
 * (`script_checker_worker.ts`), which runs this class in a Web Worker.
 *
 * @example Check a script
 * ```ts ignore
 * const checker = await ScriptChecker.create({ denoTypes, globals: "declare const args: string[];" });
 * checker.check("const n: number = args[0];");
 * // [{ message: "Type 'string' is not assignable to type 'number'.", line: 1, column: 7, code: 2322 }]
 * ```
 */
export class ScriptChecker {
  #ts: TypeScript;
  #service: Ts.LanguageService;
  #files = new Map<string, { text: string; version: number }>();
  #libSnapshots = new Map<string, Ts.IScriptSnapshot | undefined>();
  #readLibFile: (path: string) => string | undefined;
  #catalogue: { version: number; value: CheckCatalogue } | null = null;

  private constructor(
    ts: TypeScript,
    state: {
      denoTypes: string;
      globals: string;
      readLibFile: (path: string) => string | undefined;
    },
  ) {
    this.#ts = ts;
    this.#readLibFile = state.readLibFile;
    this.#files.set(DENO_FILE, { text: toCheckerDeclarations(state.denoTypes), version: 1 });
    this.#files.set(GLOBALS_FILE, { text: state.globals, version: 1 });
    this.#files.set(RUNNER_FILE, { text: "", version: 1 });
    this.#files.set(SCRIPT_FILE, { text: "", version: 1 });
    const options = compilerOptions(ts);
    const host: Ts.LanguageServiceHost = {
      getCompilationSettings: () => options,
      getScriptFileNames: () => [DENO_FILE, GLOBALS_FILE, RUNNER_FILE, SCRIPT_FILE],
      getScriptVersion: (fileName) => String(this.#files.get(fileName)?.version ?? 1),
      getScriptSnapshot: (fileName) => this.#snapshot(fileName),
      getCurrentDirectory: () => DIRECTORY,
      getDefaultLibFileName: (settings) => `${LIB_DIRECTORY}/${ts.getDefaultLibFileName(settings)}`,
      fileExists: (fileName) => this.#text(fileName) !== undefined,
      readFile: (fileName) => this.#text(fileName),
      directoryExists: (name) => name === DIRECTORY || name === LIB_DIRECTORY || name === "/",
      getDirectories: () => [],
    };
    this.#service = ts.createLanguageService(host, ts.createDocumentRegistry());
  }

  /**
   * Loads TypeScript (`npm:typescript`, pinned to the version the `deno` binary embeds, see
   * `Deno.version.typescript`; imported here so start-up does not pay for it) and builds a
   * checker. Nothing is type-checked until the first {@linkcode check} or {@linkcode warmUp}.
   */
  static async create(options: ScriptCheckerOptions): Promise<ScriptChecker> {
    const ts = (await import("typescript")).default;
    const libDirectory = dirname(ts.getDefaultLibFilePath({}));
    return new ScriptChecker(ts, {
      denoTypes: options.denoTypes,
      globals: options.globals ?? "",
      readLibFile: (path) => readLib(join(libDirectory, basename(path))),
    });
  }

  /**
   * The TypeScript version checks run with; the same as `Deno.version.typescript` of the
   * `deno` this project pins, so a script `deno check` accepts is accepted here.
   */
  get typescriptVersion(): string {
    return this.#ts.version;
  }

  /** The script globals' declarations the checker holds now. */
  get globals(): string {
    return this.#files.get(GLOBALS_FILE)?.text ?? "";
  }

  /** Replaces the script globals' declarations; the next check sees them. */
  setGlobals(dtsText: string): void {
    this.#update(GLOBALS_FILE, dtsText);
  }

  /**
   * Builds the program and checks a small script, so the first real check is fast. Call it
   * once at start-up, off the request path.
   */
  warmUp(): void {
    this.check(WARM_UP_SCRIPT);
  }

  /**
   * The first half of a warm-up, for a caller that must stay responsive between the halves:
   * parses and binds every file of the program (Deno's declarations, TypeScript's libs, the
   * globals) without checking anything; {@linkcode warmUp} then checks against it.
   */
  buildProgram(): void {
    this.#service.getProgram();
  }

  /**
   * Type-checks a script and answers its errors (never suggestions), sorted by position, at
   * 1-based lines and columns of the script's own text. Given a {@linkcode PreparedScript},
   * it checks the code that will run and maps positions back through the insertions, so the
   * result capture is checked too yet never shifts a reported column. Syntax errors are
   * answered alone (no type errors are reported for a script that does not parse).
   */
  check(script: string | PreparedScript): Diagnostic[] {
    const prepared = typeof script === "string" ? null : script;
    const code = typeof script === "string" ? script : script.code;
    const source = prepared === null ? code : sourceOf(prepared);
    if (prepared !== null) {
      this.#update(
        RUNNER_FILE,
        `declare var ${prepared.resultFunction}: (value: unknown) => void;\n`,
      );
    }
    this.#update(SCRIPT_FILE, code);
    const syntactic = this.#service.getSyntacticDiagnostics(SCRIPT_FILE);
    const found = syntactic.length > 0
      ? syntactic
      : this.#service.getSemanticDiagnostics(SCRIPT_FILE);
    const starts = lineStarts(source);
    const explain = syntactic.length > 0 || found.length === 0 ? undefined : this.#explainer();
    return this.#toDiagnostics(found, (offset) =>
      offsetToPosition(
        starts,
        prepared === null ? offset : toSourceOffset(prepared.insertions, offset),
      ), explain);
  }

  /** Explains semantic diagnostics of the script with the fix (see `check_hints.ts`). */
  #explainer(): ((diagnostic: Ts.Diagnostic) => string) | undefined {
    const program = this.#service.getProgram();
    const file = program?.getSourceFile(SCRIPT_FILE);
    if (program === undefined || file === undefined) return undefined;
    const ts = this.#ts;
    const checker = program.getTypeChecker();
    const version = this.#files.get(GLOBALS_FILE)?.version ?? 0;
    if (this.#catalogue?.version !== version) {
      let value: CheckCatalogue = { namespaces: new Map() };
      try {
        value = catalogueFromGlobals(ts, checker, program.getSourceFile(GLOBALS_FILE));
      } catch {
        // Hints without the catalogue still beat a check that fails: keep going.
      }
      this.#catalogue = { version, value };
    }
    const context = { ts, checker, file, catalogue: this.#catalogue.value };
    return (diagnostic) => {
      try {
        return explainDiagnostic(context, diagnostic);
      } catch {
        // A hint is a bonus: TypeScript's own message is reported rather than no check at all.
        return ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
      }
    };
  }

  /**
   * Errors inside the globals declarations themselves (an unknown type name, a syntax error),
   * at lines of that text. A clean result means the rendered globals are valid TypeScript.
   */
  globalsDiagnostics(): Diagnostic[] {
    const globals = this.#files.get(GLOBALS_FILE)?.text ?? "";
    const starts = lineStarts(globals);
    const found = [
      ...this.#service.getSyntacticDiagnostics(GLOBALS_FILE),
      ...this.#service.getSemanticDiagnostics(GLOBALS_FILE),
    ];
    return this.#toDiagnostics(found, (offset) => offsetToPosition(starts, offset));
  }

  /** Releases the language service and its program. */
  dispose(): void {
    this.#service.dispose();
  }

  #toDiagnostics(
    found: readonly Ts.Diagnostic[],
    position: (offset: number) => { line: number; column: number },
    explain?: (diagnostic: Ts.Diagnostic) => string,
  ): Diagnostic[] {
    const ts = this.#ts;
    const diagnostics: Diagnostic[] = [];
    const seen = new Set<string>();
    const ordered = [...found].sort((a, b) => (a.start ?? 0) - (b.start ?? 0));
    for (const diagnostic of ordered) {
      if (diagnostic.category !== ts.DiagnosticCategory.Error) continue;
      if (IGNORED_CODES.has(diagnostic.code) || isImplicitAny(diagnostic.code)) continue;
      const { line, column } = position(diagnostic.start ?? 0);
      let message = explain?.(diagnostic) ??
        ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
      // TypeScript's related information is often the fix ("Did you forget to use 'await'?",
      // "'{' was opened here"): kept, with its line when it points into the same file.
      for (const related of diagnostic.relatedInformation ?? []) {
        const text = ts.flattenDiagnosticMessageText(related.messageText, "\n");
        // Declarations in Deno's or the gateway's own files are noise to the script's author.
        if (related.file !== undefined && related.file.fileName !== diagnostic.file?.fileName) {
          continue;
        }
        message += related.start === undefined
          ? ` (${text})`
          : ` (line ${position(related.start).line}: ${text})`;
      }
      const key = `${line}:${column}:${diagnostic.code}:${message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      diagnostics.push({ message, line, column, code: diagnostic.code });
    }
    return diagnostics;
  }

  #update(fileName: string, text: string): void {
    const entry = this.#files.get(fileName);
    if (entry === undefined) {
      this.#files.set(fileName, { text, version: 1 });
    } else if (entry.text !== text) {
      entry.text = text;
      entry.version++;
    }
  }

  #text(fileName: string): string | undefined {
    const entry = this.#files.get(fileName);
    if (entry !== undefined) return entry.text;
    return fileName.startsWith(`${LIB_DIRECTORY}/`) ? this.#readLibFile(fileName) : undefined;
  }

  #snapshot(fileName: string): Ts.IScriptSnapshot | undefined {
    const entry = this.#files.get(fileName);
    if (entry !== undefined) return this.#ts.ScriptSnapshot.fromString(entry.text);
    if (!this.#libSnapshots.has(fileName)) {
      const text = this.#text(fileName);
      this.#libSnapshots.set(
        fileName,
        text === undefined ? undefined : this.#ts.ScriptSnapshot.fromString(text),
      );
    }
    return this.#libSnapshots.get(fileName);
  }
}

/** A lib file's text, or undefined when TypeScript has no such lib. */
function readLib(path: string): string | undefined {
  try {
    return Deno.readTextFileSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw new Error(`Cannot read the TypeScript lib file "${path}"`, { cause: error });
  }
}
