/**
 * Where a script can be stuck when its run times out without a tool call in flight, read from
 * its syntax tree: each `await` of something other than a tool call (a timer, a fetch …) and
 * each loop with no `await` in its body (a busy loop). A run killed from outside has no stack,
 * so when exactly one such place exists, the timeout names its line.
 * @module
 */

import type Ts from "typescript";

type TypeScript = typeof Ts;

/**
 * The 1-based lines of the script's possible stall points, in source order: non-tool awaits
 * and loops without an `await` inside.
 *
 * @example
 * ```ts
 * import ts from "typescript";
 * import { stallLines } from "./stall_lines.ts";
 * import assert from "node:assert/strict";
 * const source = [
 *   "await tools.kv.get({ key: 'a' });",
 *   "for (const x of [1]) {",
 *   "  await new Promise((r) => setTimeout(r, 10));",
 *   "}",
 *   "while (true) {}",
 * ].join("\n");
 * const file = ts.createSourceFile("/s.ts", source, ts.ScriptTarget.ESNext, true);
 * assert.deepEqual(stallLines(ts, file), [3, 5]);
 * ```
 */
export function stallLines(ts: TypeScript, file: Ts.SourceFile): number[] {
  const lines = new Set<number>();
  const lineOf = (node: Ts.Node) =>
    file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
  const visit = (node: Ts.Node): void => {
    if (ts.isAwaitExpression(node) && !awaitsToolCall(ts, node.expression)) {
      lines.add(lineOf(node));
    } else if (isLoop(ts, node) && !containsAwait(ts, node.statement)) {
      lines.add(lineOf(node));
    } else if (ts.isForOfStatement(node) && node.awaitModifier !== undefined) {
      lines.add(lineOf(node));
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return [...lines].sort((a, b) => a - b);
}

type Loop =
  | Ts.WhileStatement
  | Ts.DoStatement
  | Ts.ForStatement
  | Ts.ForOfStatement
  | Ts.ForInStatement;

function isLoop(ts: TypeScript, node: Ts.Node): node is Loop {
  return ts.isWhileStatement(node) || ts.isDoStatement(node) || ts.isForStatement(node) ||
    (ts.isForOfStatement(node) && node.awaitModifier === undefined) || ts.isForInStatement(node);
}

/** An `await` anywhere in `node`, functions nested in it excepted (they wait on their own). */
function containsAwait(ts: TypeScript, node: Ts.Node): boolean {
  let found = false;
  const visit = (child: Ts.Node): void => {
    if (found || ts.isFunctionLike(child)) return;
    if (ts.isAwaitExpression(child) || (ts.isForOfStatement(child) && child.awaitModifier)) {
      found = true;
      return;
    }
    ts.forEachChild(child, visit);
  };
  visit(node);
  return found;
}

/** `tools.ns.tool(…)`, `.raw(…)`, or `Promise.all` over such calls: the broker knows those. */
function awaitsToolCall(ts: TypeScript, expression: Ts.Expression): boolean {
  let text = expression;
  while (ts.isParenthesizedExpression(text)) text = text.expression;
  if (!ts.isCallExpression(text)) return false;
  let callee: Ts.Expression = text.expression;
  while (ts.isPropertyAccessExpression(callee) || ts.isElementAccessExpression(callee)) {
    callee = callee.expression;
  }
  if (ts.isIdentifier(callee) && callee.text === "tools") return true;
  // `Promise.all(names.map((n) => tools.ns.tool(…)))`: its calls are tool calls too.
  return ts.isIdentifier(callee) && callee.text === "Promise" &&
    /\btools\s*(\.|\[)/.test(text.getText());
}
