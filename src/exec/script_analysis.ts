/**
 * What a script uses of the gateway's globals, read from its syntax tree (the one `prepare`
 * builds): which namespaces it names under `tools`, whether it indexes `tools` dynamically,
 * calls `search`/`describe`, or reads `resources`. A run waits only for the upstreams it uses
 * and is sent the discovery data only when it searches; text in strings and comments counts
 * for nothing, where a regular expression over the source was fooled by both.
 * @module
 */

import type Ts from "typescript";

type TypeScript = typeof Ts;

/** What a script uses; plain data, so it crosses the checker worker's message port. */
export interface ScriptUsage {
  /** Names after `tools.` (namespace identifiers as the script writes them). */
  dotted: string[];
  /** Names in `tools["…"]` (namespace names as the catalogue spells them). */
  indexed: string[];
  /** `tools` used other than with a literal name (`tools[x]`, `Object.keys(tools)` …). */
  dynamic: boolean;
  /** `search` or `describe` referenced (called, or passed on). */
  discovery: boolean;
  /** `resources` referenced. */
  resources: boolean;
}

/** A script that uses everything: what a caller assumes when it has no syntax tree. */
export const USES_EVERYTHING: ScriptUsage = {
  dotted: [],
  indexed: [],
  dynamic: true,
  discovery: true,
  resources: true,
};

/**
 * Reads a parsed script's usage of `tools`, `search`, `describe` and `resources`. Any use of
 * those names the analysis cannot pin down (shadowing, aliasing, spreading) counts as a
 * dynamic use, so a run is never sent less than it needs.
 */
export function analyzeSourceFile(ts: TypeScript, file: Ts.SourceFile): ScriptUsage {
  const dotted = new Set<string>();
  const indexed = new Set<string>();
  const usage: ScriptUsage = {
    dotted: [],
    indexed: [],
    dynamic: false,
    discovery: false,
    resources: false,
  };
  const visit = (node: Ts.Node): void => {
    if (ts.isIdentifier(node) && isReference(ts, node)) {
      const name = node.text;
      if (name === "tools") {
        const key = literalMember(ts, node);
        if (key === null) usage.dynamic = true;
        else if (key.dotted) dotted.add(key.name);
        else indexed.add(key.name);
      } else if (name === "search" || name === "describe") usage.discovery = true;
      else if (name === "resources") usage.resources = true;
      else if (GLOBAL_OBJECTS.has(name)) viaGlobalObject(ts, node, usage);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  usage.dotted = [...dotted];
  usage.indexed = [...indexed];
  return usage;
}

/**
 * Parses `source` and reads its usage ({@linkcode analyzeSourceFile}). Loads TypeScript on
 * first use: inside the server prefer the `usage` a prepared script already carries.
 */
export async function analyzeScript(source: string): Promise<ScriptUsage> {
  const ts = (await import("typescript")).default;
  const file = ts.createSourceFile("/script.ts", source, ts.ScriptTarget.ESNext, true);
  return analyzeSourceFile(ts, file);
}

/**
 * The names of the namespaces a script uses, so a run waits only for those upstreams; undefined
 * when it may use any of them (dynamic `tools[x]`, `search`/`describe`, `resources`).
 */
export function namespacesUsed(
  usage: ScriptUsage,
  namespaces: readonly { name: string; identifier: string }[],
): ReadonlySet<string> | undefined {
  if (usage.dynamic || usage.discovery || usage.resources) return undefined;
  const dotted = new Set(usage.dotted);
  const indexed = new Set(usage.indexed);
  const used = new Set<string>();
  for (const ns of namespaces) {
    if (dotted.has(ns.identifier) || indexed.has(ns.name)) used.add(ns.name);
  }
  return used;
}

/** Names of the global object: `globalThis.search(…)` is `search(…)`. */
const GLOBAL_OBJECTS = new Set(["globalThis", "self", "window"]);

/**
 * Reads a use of the global object: `globalThis.tools` counts as a dynamic use of `tools`,
 * `globalThis.search` as search; a computed member (`globalThis[name]`) or the object itself
 * passed on may be any of them.
 */
function viaGlobalObject(ts: TypeScript, node: Ts.Identifier, usage: ScriptUsage): void {
  const parent = node.parent;
  const member = ts.isPropertyAccessExpression(parent) && parent.expression === node
    ? parent.name.text
    : null;
  if (member === null || member === "tools") usage.dynamic = true;
  if (member === null || member === "search" || member === "describe") usage.discovery = true;
  if (member === null || member === "resources") usage.resources = true;
}

/**
 * True when an identifier refers to a binding (it is not a property name, a declaration key or
 * a label). Declarations of the name itself count: a script that declares its own `tools` is
 * read as using `tools` dynamically, the safe side.
 */
function isReference(ts: TypeScript, node: Ts.Identifier): boolean {
  const parent = node.parent;
  if (parent === undefined) return false;
  if (ts.isPropertyAccessExpression(parent) && parent.name === node) return false;
  if (ts.isQualifiedName(parent) && parent.right === node) return false;
  if (
    (ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent) ||
      ts.isPropertySignature(parent) || ts.isMethodDeclaration(parent) ||
      ts.isMethodSignature(parent) || ts.isGetAccessorDeclaration(parent) ||
      ts.isSetAccessorDeclaration(parent) || ts.isEnumMember(parent) ||
      ts.isPropertyAccessExpression(parent)) && parent.name === node
  ) {
    return false;
  }
  if (ts.isBindingElement(parent) && parent.propertyName === node) return false;
  if (
    (ts.isImportSpecifier(parent) || ts.isExportSpecifier(parent)) && parent.propertyName === node
  ) {
    return false;
  }
  if (
    (ts.isLabeledStatement(parent) || ts.isBreakOrContinueStatement(parent)) &&
    parent.label === node
  ) {
    return false;
  }
  return true;
}

/** The literal namespace `tools` is accessed with (`tools.x`, `tools["x"]`), or null. */
function literalMember(
  ts: TypeScript,
  node: Ts.Identifier,
): { name: string; dotted: boolean } | null {
  let parent = node.parent;
  let inner: Ts.Node = node;
  while (ts.isParenthesizedExpression(parent) || ts.isNonNullExpression(parent)) {
    inner = parent;
    parent = parent.parent;
  }
  if (ts.isPropertyAccessExpression(parent) && parent.expression === inner) {
    return { name: parent.name.text, dotted: true };
  }
  if (ts.isQualifiedName(parent) && parent.left === inner) {
    return { name: parent.right.text, dotted: true };
  }
  if (ts.isElementAccessExpression(parent) && parent.expression === inner) {
    const argument = parent.argumentExpression;
    if (ts.isStringLiteral(argument) || ts.isNoSubstitutionTemplateLiteral(argument)) {
      return { name: argument.text, dotted: false };
    }
  }
  return null;
}
