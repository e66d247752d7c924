/**
 * Turns TypeScript's diagnostics on a script into ones a model fixes in one turn:
 * unknown namespaces and tools name the nearest real ones, a namespace used without `tools.`,
 * a hyphenated tool name, Python's `True`/`None`, and a bad tool argument shows the tool's
 * signature. Pure functions over a program the checker built.
 * @module
 */

import type Ts from "typescript";
import { nearestNames } from "../protocol/names.ts";
import {
  aliasesFromGlobals,
  aliasMeanings,
  explainArrayMemberOnObject,
  explainIteratedObject,
  explainUnknownProperty,
  requireAdvice,
  type ShapeContext,
} from "./shape_hints.ts";
import { enclosingNamespace, enclosingToolSignature } from "./tool_call_hints.ts";
import type { CheckCatalogue, HintContext } from "./hint_context.ts";

export type { CheckCatalogue, HintContext };

type TypeScript = typeof Ts;

/** Codes of "this argument or object does not fit the parameter" errors. */
const ARGUMENT_CODES: ReadonlySet<number> = new Set([
  2322,
  2345,
  2353,
  2559,
  2561,
  2739,
  2740,
  2741,
  2769,
  2554,
  2555,
  2556,
]);

/** Names models borrow from Python and other languages, with the JavaScript to write. */
export const FOREIGN_NAMES: Readonly<Record<string, string>> = {
  True: "true",
  False: "false",
  None: "null",
  nil: "null",
  NULL: "null",
  print: "console.log",
  len: "`.length`",
  elif: "else if",
};

/**
 * Reads the namespaces and their tools from the type of the `tools` global declared in the
 * globals file, so hints offer exactly what the check accepts.
 */
export function catalogueFromGlobals(
  ts: TypeScript,
  checker: Ts.TypeChecker,
  globals: Ts.SourceFile | undefined,
): CheckCatalogue {
  const namespaces = new Map<string, string[]>();
  if (globals === undefined) return { namespaces };
  const aliases = aliasesFromGlobals(ts, globals);
  for (const statement of globals.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const declaration = statement.declarationList.declarations.find((d) =>
      ts.isIdentifier(d.name) && d.name.text === "tools"
    );
    if (declaration === undefined) continue;
    const toolsType = checker.getTypeAtLocation(declaration.name);
    for (const property of toolsType.getProperties()) {
      const type = checker.getTypeOfSymbol(property);
      namespaces.set(property.name, type.getProperties().map((member) => member.name));
    }
  }
  return { namespaces, aliases };
}

/**
 * Explains one diagnostic of the script: answers the message to report (TypeScript's own text,
 * replaced or extended with the fix). `node` lookups use the checked text's offsets.
 */
export function explainDiagnostic(context: HintContext, diagnostic: Ts.Diagnostic): string {
  const { ts } = context;
  const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
  if (diagnostic.start === undefined || diagnostic.file?.fileName !== context.file.fileName) {
    return message;
  }
  const node = nodeAt(ts, context.file, diagnostic.start);
  if (node === undefined) return message;
  const explained = explainAt(context, diagnostic, node, message);
  // Whatever else was said, a named alias in the message is spelled out (`SqlParams = …`).
  const meanings = aliasMeanings(
    message,
    context.catalogue.aliases ?? new Map(),
    enclosingNamespace(context, node),
  ).filter((part) => !explained.includes(part));
  return meanings.length === 0 ? explained : `${explained} (where ${meanings.join("; ")})`;
}

function explainAt(
  context: HintContext,
  diagnostic: Ts.Diagnostic,
  node: Ts.Node,
  message: string,
): string {
  const { ts } = context;
  const shape = shapeContext(context);
  if (
    ts.isIdentifier(node) && node.text === "require" && [2304, 2580, 2591].includes(diagnostic.code)
  ) {
    const call = node.parent;
    const argument = ts.isCallExpression(call) ? call.arguments[0] : undefined;
    const moduleName = argument !== undefined && ts.isStringLiteralLike(argument)
      ? argument.text
      : null;
    return `Cannot find name 'require': ${requireAdvice(moduleName, shape.namespaces)}`;
  }
  if ((diagnostic.code === 2339 || diagnostic.code === 2551) && ts.isIdentifier(node)) {
    const unknown = explainUnknownMember(context, node);
    if (unknown !== null) return unknown;
    const access = node.parent;
    if (ts.isPropertyAccessExpression(access) && access.name === node) {
      const shapeHint = explainArrayMemberOnObject(shape, access);
      if (shapeHint !== null) return `${message.replace(/\.$/, "")}: ${shapeHint}`;
    }
  }
  if ([2488, 2461, 2495, 2548, 2549].includes(diagnostic.code) && !/Promise</.test(message)) {
    const shapeHint = explainIteratedObject(shape, node);
    if (shapeHint !== null) return `${message.replace(/\.$/, "")}: ${shapeHint}`;
  }
  if ((diagnostic.code === 2304 || diagnostic.code === 2552) && ts.isIdentifier(node)) {
    const name = explainUnknownName(context, node);
    if (name !== null) return `${message.replace(/\.$/, "")}: ${name}`;
  }
  if (diagnostic.code === 2588) {
    return `${message.replace(/\.$/, "")}: declare it with \`let\` if it changes`;
  }
  if (diagnostic.code === 18046 || diagnostic.code === 2571) {
    return `${message.replace(/\.$/, "")}: a tool without an output schema returns \`unknown\`; ` +
      "say what it is with a cast (`as string`, `as { items: Item[] }`) or check it with " +
      "`typeof` first";
  }
  const fields = diagnostic.code === 2353 || diagnostic.code === 2561
    ? explainUnknownProperty(shape, node)
    : null;
  if (ARGUMENT_CODES.has(diagnostic.code)) {
    const signature = enclosingToolSignature(context, node);
    if (signature !== null) {
      return `${message.replace(/\.$/, "")}${fields ? `: ${fields}` : ""}; expected ${signature}`;
    }
  }
  if (fields !== null) return `${message.replace(/\.$/, "")}: ${fields}`;
  const fix = commonFix(diagnostic.code, message);
  return fix === null ? message : `${message.replace(/\.$/, "")}: ${fix}`;
}

function shapeContext(context: HintContext): ShapeContext {
  return {
    ts: context.ts,
    checker: context.checker,
    file: context.file,
    aliases: context.catalogue.aliases ?? new Map(),
    namespaces: [...context.catalogue.namespaces.keys()].filter(isIdentifierName),
  };
}

/** The usual fix of a diagnostic whose message alone does not say what to write. */
function commonFix(code: number, message: string): string | null {
  // "'v' is possibly 'null'", "Object is possibly 'undefined'" …
  if (code === 18047 || code === 18048 || code === 18049 || code === 2531 || code === 2532) {
    return "check it first (`if (v === null) …`), read through it with `?.`, give a default " +
      "with `??`, or add `!` when you know it is set";
  }
  // Iterating or destructuring a Promise: `const [a, b] = Promise.all(…)`.
  if (
    (code === 2488 || code === 2461 || code === 2548 || code === 2549) && /Promise</.test(message)
  ) {
    return "it is a Promise: add `await` before it";
  }
  // A member read on a union (a tool's `JsonValue`, `string | number` …).
  if (code === 2339 && /on type '[^']*\|/.test(message)) {
    return 'narrow the value first (`typeof v === "string"`, `Array.isArray(v)`, `"key" in v`) ' +
      "or say what it is with a cast (`as string[]`)";
  }
  return null;
}

function explainUnknownMember(context: HintContext, name: Ts.Identifier): string | null {
  const { ts, catalogue } = context;
  const access = name.parent;
  if (!ts.isPropertyAccessExpression(access) || access.name !== name) return null;
  const owner = access.expression;
  const namespaces = [...catalogue.namespaces.keys()].filter(isIdentifierName);
  const promise = explainPromise(context, access);
  if (promise !== null) return promise;
  if (ts.isIdentifier(owner) && owner.text === "tools") {
    const near = nearestNames(name.text, namespaces, { limit: 3 });
    const next = access.parent;
    const toolName = ts.isPropertyAccessExpression(next) && next.expression === access
      ? next.name.text
      : null;
    // A misspelt namespace is answered with namespaces; a tool named where a namespace goes
    // (`tools.greet()`), or a tool no near namespace has, with the namespaces that have it.
    const holders = toolName === null ? [] : namespacesWithTool(catalogue, toolName);
    const asTool = namespacesWithTool(catalogue, name.text);
    const suggestions = [
      ...near.map((ns) => `"${ns}"`),
      ...holders.filter((ns) => !near.includes(ns)).map((ns) => `tools.${ns}.${toolName}`),
    ];
    const tool = asTool.length > 0
      ? `"${name.text}" is a tool of ${asTool.map((ns) => `tools.${ns}.${name.text}`).join(", ")}; `
      : "";
    return `Unknown namespace "${name.text}": ` +
      (suggestions.length > 0 ? `did you mean ${suggestions.join(" or ")}? ` : tool) +
      `the namespaces are: ${namespaces.join(", ") || "(none)"} ` +
      '(search("words") finds a tool by what it does)';
  }
  if (
    ts.isPropertyAccessExpression(owner) && ts.isIdentifier(owner.expression) &&
    owner.expression.text === "tools" && catalogue.namespaces.has(owner.name.text)
  ) {
    const namespace = owner.name.text;
    const members = catalogue.namespaces.get(namespace) ?? [];
    const hyphenated = hyphenatedName(ts, access);
    if (hyphenated !== null && members.includes(hyphenated)) {
      const identifier = members.find((m) => m === hyphenated.replaceAll("-", "_")) ??
        members.find((m) => isIdentifierName(m) && m.startsWith(hyphenated.replaceAll("-", "_")));
      return `"${hyphenated}" is not an identifier, so \`tools.${namespace}.${hyphenated}\` ` +
        `subtracts: write ${identifier ? `tools.${namespace}.${identifier}(…) or ` : ""}` +
        `tools.${namespace}[${JSON.stringify(hyphenated)}](…)`;
    }
    const own = nearestNames(name.text, members.filter(isIdentifierName), { limit: 3 })
      .map((tool) => `tools.${namespace}.${tool}`);
    const elsewhere: string[] = [];
    for (const [other, tools] of catalogue.namespaces) {
      if (other === namespace || !isIdentifierName(other)) continue;
      const near = nearestNames(name.text, tools.filter(isIdentifierName), {
        limit: 2,
        maxDistance: 1,
      });
      for (const tool of near) {
        elsewhere.push(`tools.${other}.${tool}`);
      }
    }
    const exact = elsewhere.filter((path) => path.endsWith(`.${name.text}`));
    const suggestions = [...exact, ...own, ...elsewhere.filter((p) => !exact.includes(p))]
      .slice(0, 4);
    const listed = members.filter(isIdentifierName);
    return `Unknown tool "${namespace}.${name.text}"` +
      (suggestions.length > 0 ? `: did you mean ${suggestions.join(" or ")}?` : "") +
      ` Namespace "${namespace}" has: ${listed.join(", ") || "(no tools)"}`;
  }
  return null;
}

/** A member read on a Promise: the author forgot `await`. */
function explainPromise(context: HintContext, access: Ts.PropertyAccessExpression): string | null {
  const { checker } = context;
  const owner = checker.getTypeAtLocation(access.expression);
  if (owner.getSymbol()?.getName() !== "Promise") return null;
  const ownerText = access.expression.getText(context.file);
  return `Property '${access.name.text}' does not exist on a Promise: did you forget to use ` +
    `'await'? Write (await ${shorten(ownerText)}).${access.name.text}, or await the call ` +
    "where the value is created";
}

/** `tools.ns.get - env(…)`: the original name the author meant (`get-env`), else null. */
function hyphenatedName(ts: TypeScript, access: Ts.PropertyAccessExpression): string | null {
  const parts = [access.name.text];
  let current: Ts.Node = access;
  // `await tools.ns.get-env()` parses as `(await tools.ns.get) - env()`.
  if (ts.isAwaitExpression(current.parent)) current = current.parent;
  while (
    ts.isBinaryExpression(current.parent) &&
    current.parent.operatorToken.kind === ts.SyntaxKind.MinusToken &&
    current.parent.left === current
  ) {
    const right: Ts.Expression = current.parent.right;
    const word = ts.isIdentifier(right)
      ? right.text
      : ts.isCallExpression(right) && ts.isIdentifier(right.expression)
      ? right.expression.text
      : null;
    if (word === null) break;
    parts.push(word);
    current = current.parent;
  }
  return parts.length > 1 ? parts.join("-") : null;
}

function explainUnknownName(context: HintContext, name: Ts.Identifier): string | null {
  const { ts, catalogue } = context;
  if (catalogue.namespaces.has(name.text)) {
    const access = name.parent;
    const tool = ts.isPropertyAccessExpression(access) && access.expression === name
      ? access.name.text
      : "TOOL";
    return `"${name.text}" is a namespace: call its tools through \`tools\`, as ` +
      `tools.${name.text}.${tool}(…)`;
  }
  const foreign = FOREIGN_NAMES[name.text];
  if (foreign !== undefined) return `JavaScript writes ${foreign} here, not ${name.text}`;
  return null;
}

function namespacesWithTool(catalogue: CheckCatalogue, tool: string): string[] {
  return [...catalogue.namespaces].filter(([ns, tools]) =>
    isIdentifierName(ns) && tools.includes(tool)
  ).map(([ns]) => ns);
}

/** The innermost node whose span holds `offset` (identifiers and keywords included). */
function nodeAt(ts: TypeScript, file: Ts.SourceFile, offset: number): Ts.Node | undefined {
  let found: Ts.Node | undefined;
  const visit = (node: Ts.Node) => {
    if (offset < node.getStart(file) || offset >= node.end) return;
    found = node;
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(file, visit);
  return found;
}

const RESERVED = new Set(
  ("break case catch class const continue debugger default delete do else enum export extends " +
    "false finally for function if import in instanceof new null return super switch this " +
    "throw true try typeof var void while with yield").split(" "),
);

/** A name a script can write after a dot (reserved words have a `_` twin, shown instead). */
function isIdentifierName(name: string): boolean {
  return /^[A-Za-z_$][\w$]*$/.test(name) && !RESERVED.has(name);
}

function shorten(text: string): string {
  const flat = text.replace(/\s+/g, " ");
  return flat.length > 60 ? `${flat.slice(0, 57)}...` : flat;
}
