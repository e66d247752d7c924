/**
 * The compact form of a tool's types that `describe` shows by default: the signature, the input
 * type in full (its JSDoc cut to one short line each), and the top-level shape of the output
 * (deeper levels on request). Pure text work over a namespace's declarations, shared by the
 * server's `describe` and the sandboxed runner's `describe()`, so both print the same.
 * @module
 */

import { maskSource } from "./source_mask.ts";
import { cutText, jsDoc, markdownText, shortenDocs } from "./jsdoc_text.ts";

export { DOC_MAX_CHARS, shortenDocs } from "./jsdoc_text.ts";

/** Longest tool description the compact form keeps before "…". */
export const DESCRIPTION_MAX_CHARS = 200;
/** Past this length an outline collapses the object literals nested in its fields to `{…}`. */
const OUTLINE_NESTED_MAX_CHARS = 300;

/** A tool as the compact description needs it. */
export interface OutlineTool {
  /** `tools.ns.tool` (or `tools.ns["orig"]`). */
  path: string;
  description: string;
  inputType: string | null;
  inputOptional: boolean;
  outputType: string;
  /** Parameter docs, shown only when the input type has no declarations of its own. */
  params?: readonly { name: string; description: string }[];
  /** Lines after the signature (original name, a namespace that is not ready). */
  notes?: readonly string[];
}

/** Options of {@linkcode composeCompactDescription}. */
export interface OutlineOptions {
  /**
   * Levels of the output shown: 1 is the output's top-level shape; 2 adds the types it names,
   * and so on. @default 1
   */
  depth?: number;
}

/**
 * Every identifier of a type text, outside strings and comments, in order.
 *
 * @example
 * ```ts
 * import { identifiersOf } from "./type_outline.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(identifiersOf('{ a: Entity; /** Note *\/ b: "Other" }'), ["a", "Entity", "b"]);
 * ```
 */
export function identifiersOf(typeText: string): string[] {
  return [...maskSource(typeText).code.matchAll(/[A-Za-z_$][\w$]*/g)].map((m) => m[0]);
}

/**
 * The declarations `roots` reach through the namespace's `declarations`, in declaration order;
 * `depth` limits the hops (1: the roots themselves).
 */
export function declarationClosure(
  roots: readonly string[],
  declarations: Readonly<Record<string, string>>,
  depth = Infinity,
): string[] {
  const seen = new Set<string>();
  let level = roots.filter((name) => Object.hasOwn(declarations, name));
  for (let hop = 0; hop < depth && level.length > 0; hop++) {
    const next: string[] = [];
    for (const name of level) {
      if (seen.has(name)) continue;
      seen.add(name);
      for (const ref of identifiersOf(declarations[name]!)) {
        if (ref !== name && Object.hasOwn(declarations, ref) && !seen.has(ref)) next.push(ref);
      }
    }
    level = next;
  }
  return Object.keys(declarations).filter((name) => seen.has(name));
}

/**
 * A declaration on one line without its JSDoc, as `Name: { … }` (an interface's body, an
 * alias's right-hand side), object literals nested in its fields collapsed to `{…}` when the
 * whole would be long.
 *
 * @example
 * ```ts
 * import { outlineDeclaration } from "./type_outline.ts";
 * import assert from "node:assert/strict";
 * const text = "/** A graph. *\/\nexport interface Graph {\n  entities: Entity[];\n  relations: Relation[];\n}";
 * assert.equal(outlineDeclaration("Graph", text), "Graph: { entities: Entity[]; relations: Relation[] }");
 * ```
 */
export function outlineDeclaration(name: string, text: string): string {
  const body = declarationBody(text);
  if (body === null) return `${name}: ${oneLine(stripComments(text))}`;
  const full = oneLine(body);
  const shown = full.length <= OUTLINE_NESTED_MAX_CHARS ? full : collapseNested(full);
  return `${name}: ${shown}`;
}

/**
 * Object literals nested inside the outermost one collapsed to `{…}`:
 * `{ a: { b: string }[] }` → `{ a: {…}[] }`. Text outside any object is left alone.
 */
export function collapseNested(typeText: string): string {
  const { code } = maskSource(typeText);
  let out = "";
  let depth = 0;
  let last = 0;
  let cutFrom = -1;
  for (let i = 0; i < code.length; i++) {
    const c = code[i];
    if (c === "{") {
      depth++;
      if (depth === 2) cutFrom = i;
    } else if (c === "}") {
      if (depth === 2 && cutFrom >= 0) {
        out += `${typeText.slice(last, cutFrom)}{…}`;
        last = i + 1;
        cutFrom = -1;
      }
      depth = Math.max(0, depth - 1);
    }
  }
  return out + typeText.slice(last);
}

/**
 * The members of an object type body `{ a: X; b?: Y }` at its top level, each on one line,
 * comments dropped.
 *
 * @example
 * ```ts
 * import { objectMembers } from "./type_outline.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(objectMembers("{ a: string; b?: { c: number; d: (x: A) => B } }"), [
 *   "a: string",
 *   "b?: { c: number; d: (x: A) => B }",
 * ]);
 * ```
 */
export function objectMembers(body: string): string[] {
  const text = stripComments(body).trim();
  if (!text.startsWith("{") || !text.endsWith("}")) return [];
  const inner = text.slice(1, -1);
  const { code } = maskSource(inner);
  const members: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < code.length; i++) {
    const c = code[i];
    if (c === "{" || c === "(" || c === "[" || c === "<") depth++;
    else if (c === "}" || c === ")" || c === "]" || (c === ">" && code[i - 1] !== "=")) depth--;
    else if (depth === 0 && (c === ";" || c === "," || c === "\n")) {
      members.push(inner.slice(from, i));
      from = i + 1;
    }
  }
  members.push(inner.slice(from));
  return members.map(oneLine).filter((m) => m !== "");
}

/**
 * The top-level fields of what `typeText` names (an object literal, or a declared interface or
 * alias, through `| null` and one array level), or null when it is not an object.
 */
export function topLevelFields(
  typeText: string,
  declarations: Readonly<Record<string, string>>,
): { name: string | null; fields: string[] } | null {
  let text = oneLine(stripComments(typeText)).replace(/\s*\|\s*(null|undefined)\b/g, "").trim();
  let name: string | null = null;
  for (let hops = 0; hops < 4; hops++) {
    if (text.startsWith("{")) {
      const fields = objectMembers(text);
      return fields.length === 0 ? null : { name, fields };
    }
    if (!/^[A-Za-z_$][\w$]*$/.test(text) || !Object.hasOwn(declarations, text)) return null;
    name = text;
    const body = declarationBody(declarations[text]!);
    if (body === null) return null;
    text = oneLine(body).replace(/\s*\|\s*(null|undefined)\b/g, "").trim();
  }
  return null;
}

/**
 * The compact description of a tool: its description cut to a few lines, the call signature,
 * every declaration the input reaches (JSDoc cut to one line), and the output's shape to
 * `depth` levels (1: its top level).
 *
 * @example
 * ```ts
 * import { composeCompactDescription } from "./type_outline.ts";
 * import assert from "node:assert/strict";
 * const declarations = {
 *   GetArgs: "/** Arguments. *\/\ninterface GetArgs {\n  /** The key. *\/\n  key: string;\n}",
 *   Entry: "interface Entry {\n  key: string;\n  meta: Meta;\n}",
 *   Meta: "interface Meta {\n  at: string;\n}",
 * };
 * const text = composeCompactDescription({
 *   path: "tools.kv.get",
 *   description: "Reads one entry.",
 *   inputType: "GetArgs",
 *   inputOptional: false,
 *   outputType: "Entry",
 * }, declarations);
 * assert.match(text, /^tools\.kv\.get\(args: GetArgs\): Promise<Entry>$/m);
 * assert.match(text, /\/\*\* The key\. \*\/\n  key: string;/);
 * assert.match(text, /^\/\/ Entry: \{ key: string; meta: Meta \}$/m);
 * assert.doesNotMatch(text, /Meta: \{/);
 * ```
 */
export function composeCompactDescription(
  tool: OutlineTool,
  declarations: Readonly<Record<string, string>>,
  options: OutlineOptions = {},
): string {
  const depth = Math.max(1, Math.floor(options.depth ?? 1));
  const inputNames = declarationClosure(identifiersOf(tool.inputType ?? ""), declarations);
  const doc: string[] = [];
  const description = cutDescription(tool.description);
  if (description !== "") doc.push(description);
  if (inputNames.length === 0) {
    for (const param of tool.params ?? []) {
      const text = cutText(markdownText(param.description.split(/\r?\n/)[0] ?? ""), 80);
      if (text !== "") doc.push(`@param args.${param.name} ${text}`);
    }
  }
  const params = tool.inputType === null
    ? ""
    : `args${tool.inputOptional ? "?" : ""}: ${oneLine(stripComments(tool.inputType))}`;
  const output = oneLine(stripComments(tool.outputType)) || "unknown";
  const lines = [
    ...(doc.length === 0 ? [] : [jsDoc(doc)]),
    `${tool.path}(${params}): Promise<${
      output.length > OUTLINE_NESTED_MAX_CHARS ? collapseNested(output) : output
    }>`,
    ...(tool.notes ?? []),
  ];
  for (const name of inputNames) lines.push(shortenDocs(stripExport(declarations[name]!)));
  const shown = new Set(inputNames);
  const renames = new Map<string, { target: string; body: string }>();
  const roots = throughAliases(identifiersOf(output), declarations, renames);
  const outputNames = declarationClosure(roots, declarations, depth)
    .filter((name) => !shown.has(name) && !renames.has(name));
  if (outputNames.length > 0) {
    const more = declarationClosure(roots, declarations, depth + 1)
      .some((name) => !shown.has(name) && !outputNames.includes(name) && !renames.has(name));
    lines.push(`// Returns${more ? ` (depth: ${depth + 1} expands the types named here)` : ""}:`);
    const aliasOf = new Map([...renames].map(([alias, rename]) => [rename.target, {
      alias,
      body: rename.body,
    }]));
    for (const name of outputNames) {
      const rename = aliasOf.get(name);
      const prefix = rename === undefined
        ? ""
        : rename.body === name
        ? `${rename.alias} = `
        : `${rename.alias} = ${rename.body}; `;
      lines.push(`// ${prefix}${outlineDeclaration(name, declarations[name]!)}`);
    }
  }
  return `${lines.join("\n")}\n`;
}

/**
 * `names` with the declarations they merely rename added (`type Output = Issue` adds `Issue`,
 * also through `[]` and `| null`), so such an alias does not cost a level of depth.
 */
function throughAliases(
  names: readonly string[],
  declarations: Readonly<Record<string, string>>,
  renames: Map<string, { target: string; body: string }>,
): string[] {
  const out = [...names];
  for (let i = 0; i < out.length && i < 50; i++) {
    const name = out[i]!;
    if (!Object.hasOwn(declarations, name)) continue;
    const body = declarationBody(declarations[name]!);
    const line = body === null ? "" : oneLine(body);
    const target = /^([A-Za-z_$][\w$]*)(?:\[\])?(?:\s*\|\s*(?:null|undefined))?$/.exec(line)?.[1];
    if (target && Object.hasOwn(declarations, target)) {
      renames.set(name, { target, body: line });
      if (!out.includes(target)) out.push(target);
    }
  }
  return out;
}

/** The body of a declaration: an interface's `{ … }`, an alias's right-hand side; else null. */
function declarationBody(text: string): string | null {
  const clean = stripComments(text);
  const { code } = maskSource(clean);
  const head = /^\s*(?:export\s+)?(?:declare\s+)?(interface|type)\s+[\w$]+\s*(<[^=]*?>)?\s*/
    .exec(code);
  if (head === null) return null;
  if (head[1] === "type") {
    const eq = code.indexOf("=", head[0].length);
    return eq < 0 ? null : clean.slice(eq + 1).replace(/;\s*$/, "").trim();
  }
  const open = code.indexOf("{", head[0].length);
  if (open < 0) return null;
  // `interface A extends B { … }`: the body alone would hide B's fields.
  if (/\bextends\b/.test(code.slice(head[0].length, open))) return null;
  return clean.slice(open).replace(/;\s*$/, "").trim();
}

function stripComments(text: string): string {
  return maskSource(text).noComments;
}

function stripExport(text: string): string {
  return text.replace(/^(\s*(?:\/\*\*[\s\S]*?\*\/\s*)?)export\s+/, "$1");
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim().replace(/;\s*\}/g, " }").replace(/\{\s+\}/g, "{}")
    .replace(/;$/, "");
}

/**
 * A tool's description cut to {@linkcode DESCRIPTION_MAX_CHARS}: its first paragraph, and the
 * next ones while the text is short (a title line alone says little).
 */
function cutDescription(description: string): string {
  // JSDoc tags written into a description (`@param …`) are for the full form.
  const untagged = description.split(/\r?\n/).filter((line) => !/^\s*@\w/.test(line)).join("\n");
  const paragraphs = untagged.trim().split(/\r?\n\s*\r?\n/)
    .map((p) => markdownText(p).replace(/\s+/g, " ").trim()).filter((p) => p !== "");
  let text = paragraphs[0] ?? "";
  let used = 1;
  while (used < paragraphs.length && text.length < DESCRIPTION_MAX_CHARS / 2) {
    text = `${/[.!?:]$/.test(text) ? text : `${text}.`} ${paragraphs[used]}`;
    used++;
  }
  const cut = cutText(text, DESCRIPTION_MAX_CHARS);
  const more = cut !== text || used < paragraphs.length;
  return more ? `${cut.endsWith("…") ? cut : `${cut} …`} (full: true shows all)` : cut;
}
