/**
 * The tool call a diagnostic sits in, as the checker's hints need it: the call's path as the
 * script writes it, its namespace, and the signature expected there (`tools.kv.get({ key:
 * string })`), read from the checked program.
 * @module
 */

import type Ts from "typescript";
import type { HintContext } from "./hint_context.ts";

type TypeScript = typeof Ts;

/** The namespace of the tool call whose arguments hold `node`, or null. */
export function enclosingNamespace(context: HintContext, node: Ts.Node): string | null {
  const { ts } = context;
  for (let current: Ts.Node | undefined = node; current; current = current.parent) {
    if (!ts.isCallExpression(current)) continue;
    const path = toolPath(ts, current.expression);
    if (path !== null) return /^tools\.([\w$]+)/.exec(path)?.[1] ?? null;
  }
  return null;
}

/** The signature of the tool whose call's arguments hold `node`, as a script writes it. */
export function enclosingToolSignature(context: HintContext, node: Ts.Node): string | null {
  const { ts, checker } = context;
  for (let current: Ts.Node | undefined = node; current; current = current.parent) {
    if (!ts.isCallExpression(current)) continue;
    const path = toolPath(ts, current.expression);
    if (path === null) continue;
    const signature = checker.getTypeAtLocation(current.expression).getCallSignatures()[0];
    const parameter = signature?.getParameters()[0];
    if (signature === undefined) return null;
    if (parameter === undefined) return `${path}()`;
    const type = checker.getTypeOfSymbolAtLocation(parameter, current);
    return `${path}(${renderArgument(context, type)})`;
  }
  return null;
}

/** `tools.ns.tool`, `tools.ns["orig"]` or `….raw` as written, or null for another callee. */
export function toolPath(ts: TypeScript, callee: Ts.Expression): string | null {
  let expression = callee;
  if (ts.isPropertyAccessExpression(expression) && expression.name.text === "raw") {
    const inner = toolPath(ts, expression.expression);
    if (inner !== null) return `${inner}.raw`;
  }
  const parts: string[] = [];
  while (ts.isPropertyAccessExpression(expression) || ts.isElementAccessExpression(expression)) {
    if (ts.isPropertyAccessExpression(expression)) parts.unshift(`.${expression.name.text}`);
    else if (ts.isStringLiteral(expression.argumentExpression)) {
      parts.unshift(`[${JSON.stringify(expression.argumentExpression.text)}]`);
    } else return null;
    expression = expression.expression;
  }
  if (!ts.isIdentifier(expression) || expression.text !== "tools" || parts.length !== 2) {
    return null;
  }
  return `tools${parts.join("")}`;
}

function renderArgument(context: HintContext, type: Ts.Type): string {
  const { ts, checker } = context;
  const parts = type.isUnion() ? type.types : [type];
  const present = parts.filter((t) => !(t.flags & (ts.TypeFlags.Void | ts.TypeFlags.Undefined)));
  const optional = present.length < parts.length;
  const objects = present.filter((t) => t.getProperties().length > 0);
  if (present.length === 0 || (objects.length === 0 && optional)) return "";
  const shown = present.length === 1 && objects.length === 1
    ? `{ ${
      objects[0]!.getProperties().map((property) => {
        const optionalMark = property.flags & ts.SymbolFlags.Optional ? "?" : "";
        const propertyType = checker.getTypeOfSymbol(property);
        const text = typeText(checker, ts, propertyType).replace(/ \| undefined$/, "");
        return `${property.name}${optionalMark}: ${text}`;
      }).join(", ")
    } }`
    : typeText(checker, ts, optional ? checker.getNonNullableType(type) : type);
  return optional ? `${shown} (optional)` : shown;
}

function typeText(checker: Ts.TypeChecker, ts: TypeScript, type: Ts.Type): string {
  return checker.typeToString(type, undefined, ts.TypeFormatFlags.NoTruncation)
    .replace(/\bGatewayNamespaces\.\w+\./g, "");
}
