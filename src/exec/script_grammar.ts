/**
 * Parse errors and grammar mistakes as a model can fix them: an unclosed bracket at the line it
 * opened, and mistakes a parse does not report but Deno refuses at run time, found on the parsed
 * script so they become a `SyntaxError` at the script's own line with the fix: a
 * top-level `return`, and `await` inside a function that is not `async`.
 * @module
 */

import type Ts from "typescript";

type TypeScript = typeof Ts;

/** A grammar mistake: what is wrong and what to write instead, at a 0-based offset. */
export interface GrammarMistake {
  message: string;
  /** Offset (UTF-16 code units) in the parsed text. */
  start: number;
}

/**
 * Finds the first grammar mistake a model typically makes in a snippet, or null:
 *
 * - `return value` at the top level: a snippet's last expression is its result, so the fix is
 *   to write the value alone (`return` is only allowed inside a function).
 * - `await` (or `for await`) inside a function that is not `async`, e.g. a `.map()` callback:
 *   the fix is to mark that function `async` (and `await Promise.all(…)` its results).
 */
export function findGrammarMistake(ts: TypeScript, file: Ts.SourceFile): GrammarMistake | null {
  let found: GrammarMistake | null = null;
  const visit = (node: Ts.Node, enclosing: Ts.FunctionLikeDeclaration | null): void => {
    if (found !== null) return;
    if (ts.isReturnStatement(node) && enclosing === null) {
      const value = node.expression?.getText(file);
      found = {
        start: node.getStart(file),
        message: "A 'return' statement is not allowed at the top level of a script: " +
          (value === undefined
            ? "remove it (a snippet's last expression is its result)"
            : `a snippet's last expression is its result, so write \`${
              shorten(value)
            }\` alone instead of \`return ${shorten(value)}\``),
      };
      return;
    }
    const isAwait = ts.isAwaitExpression(node) ||
      (ts.isForOfStatement(node) && node.awaitModifier !== undefined);
    if (isAwait && enclosing !== null && !isAsync(ts, enclosing)) {
      const what = ts.isForOfStatement(node) ? "'for await'" : "'await'";
      found = {
        start: node.getStart(file),
        message:
          `${what} is used in a function that is not async (line ${
            lineOf(file, enclosing)
          }): make ${describeFunction(ts, enclosing, file)} \`async\`` +
          (isCallback(ts, enclosing)
            ? ", and await the promises it returns (e.g. `await Promise.all(items.map(async (x) => …))`)"
            : ""),
      };
      return;
    }
    const next = ts.isFunctionLike(node) && isFunctionWithBody(ts, node)
      ? node as Ts.FunctionLikeDeclaration
      : ts.isClassStaticBlockDeclaration(node)
      ? null
      : enclosing;
    ts.forEachChild(node, (child) => visit(child, next));
  };
  ts.forEachChild(file, (child) => visit(child, null));
  return found;
}

/**
 * A parse error as the author should read it: where an unclosed bracket opened (with the line
 * the parser gave up at) rather than the end of the file, else TypeScript's own message.
 */
export function describeSyntaxError(
  ts: TypeScript,
  file: Ts.SourceFile,
  diagnostic: Ts.DiagnosticWithLocation,
): { message: string; line: number; column: number } {
  const { line, character } = file.getLineAndCharacterOfPosition(diagnostic.start);
  const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
  // "'}' expected" carries where the unclosed bracket opened: that line is where to fix it.
  const opened = diagnostic.relatedInformation?.find((related) =>
    related.start !== undefined &&
    / was opened here|expected to find a '.' to match/.test(String(related.messageText))
  );
  if (opened?.start !== undefined) {
    const at = file.getLineAndCharacterOfPosition(opened.start);
    const bracket = `'${file.text[opened.start]}'`;
    return {
      message: `${message.replace(/\.$/, "")}: the ${bracket} opened at line ${
        at.line + 1
      } is never closed (reached line ${line + 1}); close it where the block ends`,
      line: at.line + 1,
      column: at.character + 1,
    };
  }
  const unclosed = /^'([)\]}])' expected\.?$/.exec(message);
  const open = unclosed ? unmatchedOpening(ts, file.text, unclosed[1]!, diagnostic.start) : null;
  if (open !== null) {
    const at = file.getLineAndCharacterOfPosition(open);
    return {
      message: `${message.replace(/\.$/, "")}: the '${file.text[open]}' opened at line ${
        at.line + 1
      } is never closed (reached line ${line + 1}); close it where it should end`,
      line: at.line + 1,
      column: at.character + 1,
    };
  }
  return { message, line: line + 1, column: character + 1 };
}

/** Offset of the last bracket opened before `end` and not closed, when it matches `closing`. */
function unmatchedOpening(
  ts: TypeScript,
  text: string,
  closing: string,
  end: number,
): number | null {
  const pairs: Record<string, string> = { ")": "(", "]": "[", "}": "{" };
  const scanner = ts.createScanner(ts.ScriptTarget.ESNext, true, ts.LanguageVariant.Standard, text);
  const open: Array<{ char: string; at: number }> = [];
  for (let token = scanner.scan(); token !== ts.SyntaxKind.EndOfFileToken; token = scanner.scan()) {
    const at = scanner.getTokenStart();
    if (at >= end) break;
    const char = text[at]!;
    if (
      token === ts.SyntaxKind.OpenParenToken || token === ts.SyntaxKind.OpenBracketToken ||
      token === ts.SyntaxKind.OpenBraceToken
    ) {
      open.push({ char, at });
    } else if (
      token === ts.SyntaxKind.CloseParenToken || token === ts.SyntaxKind.CloseBracketToken ||
      token === ts.SyntaxKind.CloseBraceToken
    ) {
      if (open.at(-1)?.char === pairs[char]) open.pop();
    }
  }
  const last = open.at(-1);
  return last !== undefined && last.char === pairs[closing] ? last.at : null;
}

function isFunctionWithBody(ts: TypeScript, node: Ts.Node): boolean {
  return ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) || ts.isMethodDeclaration(node) || ts.isGetAccessor(node) ||
    ts.isSetAccessor(node) || ts.isConstructorDeclaration(node);
}

function isAsync(ts: TypeScript, node: Ts.FunctionLikeDeclaration): boolean {
  const modifiers = ts.canHaveModifiers(node) ? ts.getModifiers(node) : undefined;
  return modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.AsyncKeyword) ?? false;
}

function isCallback(ts: TypeScript, node: Ts.FunctionLikeDeclaration): boolean {
  return (ts.isArrowFunction(node) || ts.isFunctionExpression(node)) &&
    ts.isCallExpression(node.parent);
}

function describeFunction(
  ts: TypeScript,
  node: Ts.FunctionLikeDeclaration,
  file: Ts.SourceFile,
): string {
  if (isCallback(ts, node)) {
    const call = node.parent as Ts.CallExpression;
    const callee = call.expression;
    const name = ts.isPropertyAccessExpression(callee) ? `.${callee.name.text}()` : "the call";
    return `the callback passed to ${name}`;
  }
  const name = node.name?.getText(file);
  return name === undefined ? "the enclosing function" : `function \`${name}\``;
}

function lineOf(file: Ts.SourceFile, node: Ts.Node): number {
  return file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
}

function shorten(text: string): string {
  const flat = text.replace(/\s+/g, " ");
  return flat.length > 60 ? `${flat.slice(0, 57)}...` : flat;
}
