/**
 * Hints about the shape of values in a script's diagnostics: the fields a type has when an
 * object literal names one it lacks, what a named alias of the tool types stands for, the
 * fields of an object used as an array, and `import` instead of `require`. Used by
 * `check_hints.ts` on the checked path and, through the local-input check, on the unchecked one.
 * @module
 */

import type Ts from "typescript";
import { nearestNames } from "../protocol/names.ts";
import { ARRAY_MEMBERS } from "./array_members.ts";

type TypeScript = typeof Ts;

/** A type alias of the tool types: its namespace and its right-hand side, on one line. */
export interface AliasText {
  namespace: string;
  text: string;
}

/** What the shape hints need of the checked program. */
export interface ShapeContext {
  ts: TypeScript;
  checker: Ts.TypeChecker;
  file: Ts.SourceFile;
  /** Alias name → where it is declared and what it stands for (from the globals file). */
  aliases: ReadonlyMap<string, readonly AliasText[]>;
  /** Namespace identifiers of the catalogue. */
  namespaces: readonly string[];
}

/** Longest alias text a hint quotes; a longer one is cut. */
const MAX_ALIAS_CHARS = 160;
/** Most fields a hint lists. */
const MAX_FIELDS = 12;

/**
 * Reads the type aliases declared under `GatewayNamespaces` in the globals file, so a hint can
 * say what `SqlParams` or `JsonValue` stands for.
 */
export function aliasesFromGlobals(
  ts: TypeScript,
  globals: Ts.SourceFile | undefined,
): Map<string, AliasText[]> {
  const aliases = new Map<string, AliasText[]>();
  if (globals === undefined) return aliases;
  const visit = (node: Ts.Node, namespace: string | null) => {
    if (ts.isModuleDeclaration(node)) {
      const name = node.name.text;
      const inner = namespace === null && name === "GatewayNamespaces"
        ? ""
        : namespace === ""
        ? name
        : namespace;
      if (node.body) ts.forEachChild(node.body, (child) => visit(child, inner));
      return;
    }
    if (ts.isModuleBlock(node)) {
      ts.forEachChild(node, (child) => visit(child, namespace));
      return;
    }
    if (ts.isTypeAliasDeclaration(node) && namespace) {
      const text = oneLine(node.type.getText(globals));
      const list = aliases.get(node.name.text) ?? [];
      list.push({ namespace, text });
      aliases.set(node.name.text, list);
    }
  };
  ts.forEachChild(globals, (node) => visit(node, null));
  return aliases;
}

/**
 * What the aliases quoted in `message` stand for, as `Name = text` parts (and the aliases those
 * name in turn, one level), preferring the declaration in `namespace`; empty when none is.
 */
export function aliasMeanings(
  message: string,
  aliases: ReadonlyMap<string, readonly AliasText[]>,
  namespace: string | null,
): string[] {
  const quoted = [...message.matchAll(/'([^']+)'/g)].map((m) => m[1]!).join(" ");
  const names = [...new Set(quoted.match(/[A-Za-z_$][\w$]*/g) ?? [])];
  const parts: string[] = [];
  const seen = new Set<string>();
  const add = (name: string, depth: number) => {
    if (seen.has(name)) return;
    const found = aliases.get(name);
    if (found === undefined) return;
    const chosen = found.find((a) => a.namespace === namespace) ??
      (found.length === 1 ? found[0] : undefined);
    if (chosen === undefined) return;
    seen.add(name);
    parts.push(`${name} = ${cut(chosen.text, MAX_ALIAS_CHARS)}${gloss(chosen.text)}`);
    if (depth === 0) {
      for (const inner of chosen.text.match(/[A-Za-z_$][\w$]*/g) ?? []) add(inner, 1);
    }
  };
  for (const name of names) add(name, 0);
  return parts;
}

/**
 * What an alias is, in words, when it stands for arrays or objects: ` (an array or an object)`;
 * empty for scalars and literal unions, whose text says it all.
 */
function gloss(text: string): string {
  const members = splitUnion(text);
  const kinds = [
    ...new Set(
      members.map((member) =>
        /\[\]$|^(Readonly)?Array</.test(member)
          ? "an array"
          : /^\{/.test(member)
          ? "an object"
          : /^\(.*\)\s*=>/.test(member)
          ? "a function"
          : "a value"
      ),
    ),
  ];
  if (!kinds.includes("an array") && !kinds.includes("an object")) return "";
  return ` (${kinds.filter((k) => k !== "a value").join(" or ")}${
    kinds.includes("a value") ? " or a plain value" : ""
  })`;
}

/** The members of a union type's text at its top level. */
function splitUnion(text: string): string[] {
  const members: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "{" || c === "(" || c === "[" || c === "<") depth++;
    else if (c === "}" || c === ")" || c === "]" || (c === ">" && text[i - 1] !== "=")) depth--;
    else if (c === "|" && depth === 0) {
      members.push(text.slice(from, i).trim());
      from = i + 1;
    }
  }
  members.push(text.slice(from).trim());
  return members.filter((m) => m !== "");
}

/**
 * A property an object literal has but its type lacks (TS2353, TS2561): the fields the type
 * has, the nearest first.
 */
export function explainUnknownProperty(context: ShapeContext, node: Ts.Node): string | null {
  const { ts, checker } = context;
  const property = ancestor(ts, node, ts.isObjectLiteralElementLike);
  if (property === undefined || !ts.isObjectLiteralExpression(property.parent)) return null;
  const name =
    property.name && (ts.isIdentifier(property.name) || ts.isStringLiteral(property.name))
      ? property.name.text
      : null;
  const type = checker.getContextualType(property.parent);
  if (name === null || type === undefined) return null;
  const target = checker.getNonNullableType(type);
  const fields = fieldList(context, target);
  if (fields.length === 0) return null;
  const names = target.getProperties().map((p) => p.name);
  const near = nearestNames(name, names, { limit: 2 });
  const containing = names.filter((n) =>
    n.toLowerCase().includes(name.toLowerCase()) && !near.includes(n)
  );
  const meant = [...near, ...containing].slice(0, 2);
  return `${meant.length > 0 ? `did you mean ${meant.map((n) => `\`${n}\``).join(" or ")}? ` : ""}${
    typeName(target)
  } has: ${fields.join(", ")}`;
}

/**
 * An array member (`.map`, `.filter`, `.length` …) read on an object that is not an array:
 * the object's fields, so the author picks the array inside it.
 */
export function explainArrayMemberOnObject(
  context: ShapeContext,
  access: Ts.PropertyAccessExpression,
): string | null {
  if (!ARRAY_MEMBERS.has(access.name.text)) return null;
  return objectNotArray(context, access.expression, `.${access.name.text}`);
}

/** An object iterated (`for … of`, spread, destructured as an array): its fields. */
export function explainIteratedObject(context: ShapeContext, node: Ts.Node): string | null {
  const { ts } = context;
  const expression = ts.isExpression(node) ? node : undefined;
  return expression === undefined ? null : objectNotArray(context, expression, "iteration");
}

function objectNotArray(
  context: ShapeContext,
  expression: Ts.Expression,
  use: string,
): string | null {
  const { ts, checker } = context;
  const type = checker.getNonNullableType(checker.getTypeAtLocation(expression));
  if (checker.isArrayType(type) || checker.isTupleType(type)) return null;
  if (type.flags & (ts.TypeFlags.StringLike | ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return null;
  if (type.getSymbol()?.getName() === "Promise") return null;
  const fields = fieldList(context, type);
  if (fields.length === 0) return null;
  const arrays = type.getProperties().filter((p) =>
    checker.isArrayType(checker.getNonNullableType(checker.getTypeOfSymbol(p)))
  ).map((p) => p.name);
  const text = shorten(expression.getText(context.file));
  const example = arrays.length > 0 && use !== "iteration"
    ? `, e.g. ${text}.${arrays[0]}${use}`
    : arrays.length > 0
    ? `, e.g. ${text}.${arrays[0]}`
    : "";
  return `${text} is ${typeName(type)}, an object, not an array; its fields: ${
    fields.join(", ")
  }. Use the array inside it${example}`;
}

/** `require(…)` in a script: what to write instead (an `import`, or a tool). */
export function requireAdvice(moduleName: string | null, namespaces: readonly string[]): string {
  const name = moduleName ?? "MODULE";
  const bare = name.replace(/^node:/, "");
  const spec = /^[a-z_]+(?:\/[a-z_]+)?$/.test(bare) ? `node:${bare}` : name;
  const files = /^(fs|fs\/promises|path)$/.test(bare)
    ? namespaces.filter((ns) => /^(fs|files?|filesystem)$/.test(ns))
    : [];
  const tool = files.length > 0
    ? `; to read or write files prefer the ${
      files.map((ns) => `tools.${ns}`).join(" or ")
    } tools (e.g. await tools.${files[0]}.${
      files[0] === "fs" ? "read" : "read_text_file"
    }({ path }))`
    : "";
  return `\`require\` does not exist in a gateway script (an ES module): write ` +
    `\`import … from "${spec}"\` at the top instead${tool}`;
}

function fieldList(context: ShapeContext, type: Ts.Type): string[] {
  const { ts, checker } = context;
  const properties = type.getProperties();
  const fields = properties.slice(0, MAX_FIELDS).map((property) => {
    const optional = property.flags & ts.SymbolFlags.Optional ? "?" : "";
    const text = checker.typeToString(
      checker.getTypeOfSymbol(property),
      undefined,
      ts.TypeFormatFlags.NoTruncation,
    ).replace(/\bGatewayNamespaces\.\w+\./g, "").replace(/ \| undefined$/, "");
    return `${property.name}${optional}: ${cut(text, 60)}`;
  });
  if (properties.length > MAX_FIELDS) fields.push(`… ${properties.length - MAX_FIELDS} more`);
  return fields;
}

function typeName(type: Ts.Type): string {
  const name = type.aliasSymbol?.getName() ?? type.getSymbol()?.getName();
  return name && name !== "__type" && name !== "__object" ? `'${name}'` : "the object type";
}

function ancestor<T extends Ts.Node>(
  _ts: TypeScript,
  node: Ts.Node,
  test: (node: Ts.Node) => node is T,
): T | undefined {
  for (let current: Ts.Node | undefined = node; current; current = current.parent) {
    if (test(current)) return current;
  }
  return undefined;
}

function oneLine(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\s+/g, " ").replace(/;\s*\}/g, " }")
    .trim();
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function shorten(text: string): string {
  const flat = text.replace(/\s+/g, " ");
  return flat.length > 40 ? `${flat.slice(0, 37)}...` : flat;
}
