/**
 * Grammar mistakes a parse does not report but Deno refuses at run time, found on the parsed
 * script so they become a `SyntaxError` at the script's own line with the fix (issue 10): a
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
