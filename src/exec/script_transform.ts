/**
 * Prepares a model-written script before it runs: parses it with TypeScript, reports syntax
 * errors at the script's own line and column, and, for an inline snippet, rewrites the last
 * top-level expression statement in place so its value becomes the run's `result`.
 * @module
 */

import type Ts from "typescript";
import { stripMarkdownFence } from "./markdown_fence.ts";
import { describeSyntaxError, findGrammarMistake } from "./script_grammar.ts";
import { stallLines } from "./stall_lines.ts";
import { analyzeSourceFile, type ScriptUsage } from "./script_analysis.ts";
import { runsAsJavaScript } from "./script_language.ts";

type TypeScript = typeof Ts;

/** Name of the function the runner installs on `globalThis` to receive the result. */
export const DEFAULT_RESULT_FUNCTION = "__gatewayResult";

/** Options of {@linkcode prepareScript}. */
export interface PrepareScriptOptions {
  /** True for an inline snippet (its last expression is the result), false for a named script. */
  inline: boolean;
  /**
   * Global function that receives the last expression's value.
   * @default {"__gatewayResult"}
   */
  resultFunction?: string;
}

/**
 * Text the transform inserted into the source, so positions in the prepared code (type
 * diagnostics, stack traces) can be mapped back with {@linkcode toSourcePosition}.
 */
export interface Insertion {
  /** Offset in the original source (UTF-16 code units) before which the text was inserted. */
  offset: number;
  /** Length of the inserted text. Inserted text never holds a line break. */
  length: number;
}

/** A script ready to run; `code` has the same lines as the source. */
export interface PreparedScript {
  kind: "Prepared";
  /** The source with the result capture applied (the source itself when nothing was captured). */
  code: string;
  /** True when the last top-level expression was wrapped to report its value. */
  lastExpression: boolean;
  /** What was inserted, in source order (empty when nothing was). */
  insertions: Insertion[];
  /** The global function the code calls with the result. */
  resultFunction: string;
  /** What was changed for the author to know (e.g. Markdown fences stripped), for `warnings`. */
  warnings?: string[];
  /** What the script uses of `tools`, `search`/`describe` and `resources`, from its AST. */
  usage?: ScriptUsage;
  /** Lines where a run can wait without a tool call (`stall_lines.ts`), for timeouts. */
  stallLines?: number[];
  /**
   * True when the code holds no TypeScript (`script_language.ts`): it runs as a `.js` file,
   * which Deno neither compiles nor caches a copy of. Absent means TypeScript.
   */
  javaScript?: boolean;
}

/** A script TypeScript cannot parse; becomes a run with `kind: "SyntaxError"`. */
export interface ScriptSyntaxError {
  kind: "SyntaxError";
  message: string;
  /** 1-based line in the script's own text. */
  line: number;
  /** 1-based column (UTF-16 code units) in the script's own text. */
  column: number;
}

/** What {@linkcode prepareScript} answers. */
export type PrepareScriptResult = PreparedScript | ScriptSyntaxError;

const SCRIPT_FILE = "/script.ts";

/**
 * Parses a script and prepares it to run. For an inline snippet whose last top-level statement
 * is an expression statement, `expr;` becomes `globalThis.__gatewayResult((expr));` on the
 * same lines, so every other statement keeps its line and column. Rules:
 *
 * - Assignments are captured like any expression (`x = 1` at the end gives 1), as `eval` and
 *   the Deno REPL do.
 * - Trailing function declarations, type-only declarations (`interface`, `type`, `declare …`),
 *   imports and empty statements are skipped: they produce no value and are hoisted or erased,
 *   so `main();` followed by `async function main() {…}` still reports `main()`'s value.
 * - Any other last statement (`const`, `let`, `class`, `if`, `for` …) means no result.
 * - A last statement that looks like an object literal (`{ a: 1, b: 2 }`, a block or a syntax
 *   error as plain JavaScript) is read as one, as the Deno REPL does.
 *
 * TypeScript is imported on first use, so importing this module costs nothing at start-up.
 *
 * @example Capture the last expression of a snippet
 * ```ts
 * import { prepareScript } from "./script_transform.ts";
 * import assert from "node:assert/strict";
 * const prepared = await prepareScript("const a = 2;\na * 21", { inline: true });
 * assert.equal(prepared.kind, "Prepared");
 * if (prepared.kind === "Prepared") {
 *   assert.equal(prepared.code, "const a = 2;\nglobalThis.__gatewayResult((a * 21))");
 * }
 * ```
 */
export async function prepareScript(
  source: string,
  options: PrepareScriptOptions,
): Promise<PrepareScriptResult> {
  const resultFunction = options.resultFunction ?? DEFAULT_RESULT_FUNCTION;
  if (!/^[A-Za-z_$][\w$]*$/.test(resultFunction)) {
    throw new RangeError(
      `Cannot prepare script: result function "${resultFunction}" is not an identifier`,
    );
  }
  const ts = (await import("typescript")).default;
  const fence = stripMarkdownFence(source);
  const parsed = parseScript(ts, fence.source);
  const prepared = prepareParsed(ts, parsed, fence.source, {
    inline: options.inline,
    resultFunction,
  });
  if (prepared.kind === "Prepared") {
    prepared.usage = analyzeSourceFile(ts, parsed.file);
    prepared.stallLines = stallLines(ts, parsed.file);
    // Read from the source's tree, so only where that parsed cleanly; what the capture
    // inserts is plain JavaScript.
    if (parsed.diagnostics.length === 0 && runsAsJavaScript(ts, parsed.file)) {
      prepared.javaScript = true;
    }
  }
  if (fence.warning !== null && prepared.kind === "Prepared") {
    prepared.warnings = [...prepared.warnings ?? [], fence.warning];
  }
  return prepared;
}

function prepareParsed(
  ts: TypeScript,
  parsed: ParsedScript,
  source: string,
  options: { inline: boolean; resultFunction: string },
): PrepareScriptResult {
  const { resultFunction } = options;
  const unchanged: PreparedScript = {
    kind: "Prepared",
    code: source,
    lastExpression: false,
    insertions: [],
    resultFunction,
  };

  if (parsed.diagnostics.length > 0) {
    const first = firstDiagnostic(parsed.diagnostics);
    if (options.inline) {
      const objectLiteral = captureObjectLiteral(ts, { source, file: parsed.file, resultFunction });
      if (objectLiteral !== null && first.start >= objectLiteral.insertions[0]!.offset) {
        return objectLiteral;
      }
    }
    return syntaxError(ts, parsed.file, first);
  }
  const mistake = findGrammarMistake(ts, parsed.file);
  if (mistake !== null) {
    const { line, character } = parsed.file.getLineAndCharacterOfPosition(mistake.start);
    return { kind: "SyntaxError", message: mistake.message, line: line + 1, column: character + 1 };
  }
  if (!options.inline) return unchanged;

  const last = lastValueStatement(ts, parsed.file);
  if (last === undefined) return unchanged;
  if (ts.isExpressionStatement(last)) {
    const start = last.expression.getStart(parsed.file);
    return wrap(source, { start, end: last.expression.end, resultFunction });
  }
  if (ts.isBlock(last)) {
    return captureObjectLiteral(ts, { source, file: parsed.file, resultFunction }) ?? unchanged;
  }
  return unchanged;
}

/**
 * Maps a 1-based line and column in a prepared script's code back to the script's own text,
 * so a stack trace or a type diagnostic points where the author wrote the code. A position
 * inside inserted text maps to where the insertion was made.
 */
export function toSourcePosition(
  prepared: PreparedScript,
  position: { line: number; column: number },
): { line: number; column: number } {
  if (prepared.insertions.length === 0) return { line: position.line, column: position.column };
  const codeLineStarts = lineStarts(prepared.code);
  const lineStart = codeLineStarts[position.line - 1];
  if (lineStart === undefined) return { line: position.line, column: position.column };
  const offset = toSourceOffset(prepared.insertions, lineStart + position.column - 1);
  const source = sourceOf(prepared);
  return offsetToPosition(lineStarts(source), offset);
}

/**
 * Maps an offset in prepared code to the matching offset in the original source (see
 * {@linkcode toSourcePosition}); exported for callers that work with offsets, like the checker.
 */
export function toSourceOffset(insertions: readonly Insertion[], codeOffset: number): number {
  let shift = 0;
  for (const insertion of insertions) {
    const codeStart = insertion.offset + shift;
    if (codeOffset < codeStart) break;
    if (codeOffset < codeStart + insertion.length) return insertion.offset;
    shift += insertion.length;
  }
  return codeOffset - shift;
}

/** Rebuilds the original source of a prepared script by removing what was inserted. */
export function sourceOf(prepared: PreparedScript): string {
  let source = "";
  let cursor = 0;
  let shift = 0;
  for (const insertion of prepared.insertions) {
    const codeStart = insertion.offset + shift;
    source += prepared.code.slice(cursor, codeStart);
    cursor = codeStart + insertion.length;
    shift += insertion.length;
  }
  return source + prepared.code.slice(cursor);
}

/** Offsets at which each line starts (`\n`, `\r\n`, `\r`, U+2028 and U+2029 end lines). */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (char === 13 /* \r */) {
      if (text.charCodeAt(index + 1) === 10) index++;
      starts.push(index + 1);
    } else if (char === 10 || char === 0x2028 || char === 0x2029) {
      starts.push(index + 1);
    }
  }
  return starts;
}

/** Converts an offset to a 1-based line and column using {@linkcode lineStarts}. */
export function offsetToPosition(
  starts: readonly number[],
  offset: number,
): { line: number; column: number } {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle]! <= offset) low = middle;
    else high = middle - 1;
  }
  return { line: low + 1, column: offset - starts[low]! + 1 };
}

interface ParsedScript {
  file: Ts.SourceFile;
  diagnostics: readonly Ts.DiagnosticWithLocation[];
}

/**
 * Parses through a one-file program so the file is parsed as a module (top-level `await`
 * parsed as such, `moduleDetection: force`) the way the checker and Deno see it.
 */
function parseScript(ts: TypeScript, text: string): ParsedScript {
  const options: Ts.CompilerOptions = {
    noLib: true,
    noResolve: true,
    noEmit: true,
    types: [],
    target: ts.ScriptTarget.ESNext,
    module: ts.ModuleKind.ESNext,
    moduleDetection: ts.ModuleDetectionKind.Force,
  };
  const host: Ts.CompilerHost = {
    getSourceFile: (fileName, languageVersion) =>
      fileName === SCRIPT_FILE
        ? ts.createSourceFile(fileName, text, languageVersion, true, ts.ScriptKind.TS)
        : undefined,
    getDefaultLibFileName: () => "/lib.d.ts",
    writeFile: () => {},
    getCurrentDirectory: () => "/",
    getCanonicalFileName: (fileName) => fileName,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => "\n",
    fileExists: (fileName) => fileName === SCRIPT_FILE,
    readFile: (fileName) => fileName === SCRIPT_FILE ? text : undefined,
  };
  const program = ts.createProgram({ rootNames: [SCRIPT_FILE], options, host });
  const file = program.getSourceFile(SCRIPT_FILE);
  if (file === undefined) throw new Error(`Cannot parse script: "${SCRIPT_FILE}" was not created`);
  return { file, diagnostics: program.getSyntacticDiagnostics(file) };
}

function firstDiagnostic(
  diagnostics: readonly Ts.DiagnosticWithLocation[],
): Ts.DiagnosticWithLocation {
  return [...diagnostics].sort((a, b) => a.start - b.start)[0]!;
}

function syntaxError(
  ts: TypeScript,
  file: Ts.SourceFile,
  diagnostic: Ts.DiagnosticWithLocation,
): ScriptSyntaxError {
  return { kind: "SyntaxError", ...describeSyntaxError(ts, file, diagnostic) };
}

/** The last top-level statement that could carry a value, skipping hoisted or erased ones. */
function lastValueStatement(ts: TypeScript, file: Ts.SourceFile): Ts.Statement | undefined {
  for (let index = file.statements.length - 1; index >= 0; index--) {
    const statement = file.statements[index]!;
    if (!producesNoValue(ts, statement)) return statement;
  }
  return undefined;
}

function producesNoValue(ts: TypeScript, statement: Ts.Statement): boolean {
  if (
    ts.isEmptyStatement(statement) || ts.isFunctionDeclaration(statement) ||
    ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement) ||
    ts.isImportDeclaration(statement) || ts.isImportEqualsDeclaration(statement)
  ) {
    return true;
  }
  const modifiers = ts.canHaveModifiers(statement) ? ts.getModifiers(statement) : undefined;
  return modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.DeclareKeyword) ?? false;
}

function wrap(
  source: string,
  range: { start: number; end: number; resultFunction: string },
): PreparedScript {
  const prefix = `globalThis.${range.resultFunction}((`;
  const suffix = "))";
  return {
    kind: "Prepared",
    code: source.slice(0, range.start) + prefix + source.slice(range.start, range.end) + suffix +
      source.slice(range.end),
    lastExpression: true,
    insertions: [
      { offset: range.start, length: prefix.length },
      { offset: range.end, length: suffix.length },
    ],
    resultFunction: range.resultFunction,
  };
}

/**
 * Reads the script's tail from its last top-level statement that starts with `{` as an object
 * literal, REPL style. Answers null unless the whole rewritten script then parses cleanly.
 */
function captureObjectLiteral(
  ts: TypeScript,
  context: { source: string; file: Ts.SourceFile; resultFunction: string },
): PreparedScript | null {
  const { source, file } = context;
  const openBrace = [...file.statements].reverse()
    .map((statement) => statement.getStart(file))
    .find((start) => source[start] === "{");
  if (openBrace === undefined) return null;
  const end = lastTokenEnd(ts, source, openBrace);
  if (end <= openBrace) return null;
  const candidate = wrap(source, { start: openBrace, end, resultFunction: context.resultFunction });
  const reparsed = parseScript(ts, candidate.code);
  if (reparsed.diagnostics.length > 0) return null;
  const last = reparsed.file.statements[reparsed.file.statements.length - 1];
  if (last === undefined || !ts.isExpressionStatement(last)) return null;
  const call = last.expression;
  if (!ts.isCallExpression(call)) return null;
  const argument = call.arguments[0];
  if (argument === undefined || !ts.isParenthesizedExpression(argument)) return null;
  return ts.isObjectLiteralExpression(argument.expression) ? candidate : null;
}

/** End of the last token from `start` on, ignoring trailing comments and semicolons. */
function lastTokenEnd(ts: TypeScript, source: string, start: number): number {
  const scanner = ts.createScanner(
    ts.ScriptTarget.ESNext,
    true,
    ts.LanguageVariant.Standard,
    source,
  );
  scanner.resetTokenState(start);
  let end = start;
  for (
    let token = scanner.scan();
    token !== ts.SyntaxKind.EndOfFileToken;
    token = scanner.scan()
  ) {
    if (token !== ts.SyntaxKind.SemicolonToken) end = scanner.getTokenEnd();
  }
  return end;
}
