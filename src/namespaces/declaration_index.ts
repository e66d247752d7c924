/**
 * Reads the top-level declarations of a namespace's `declarations` text (interfaces, type
 * aliases, enums …): their JSDoc, the declarations each refers to, and a one-line form, so
 * signatures inline short ones and `describe` lists the ones a tool uses.
 * @module
 */

import { compareText, type ToolDescriptor } from "../protocol/catalogue.ts";
import { collapse, identifiersIn, maskSource } from "./type_text.ts";

/** One top-level declaration found in a namespace's `declarations` text. */
export interface DeclarationEntry {
  name: string;
  /** Source text with its leading JSDoc, as written. */
  text: string;
  /**
   * One-line form used in place of the name in signatures (an interface's `{ … }` body, a type
   * alias's right-hand side), or null when it cannot stand alone (generic, `extends`, enum …).
   */
  inline: string | null;
  /** Names of other declarations in the same text that this one refers to. */
  references: string[];
}

/** Declarations of one namespace by name, from {@linkcode parseDeclarations}. */
export type DeclarationIndex = ReadonlyMap<string, DeclarationEntry>;

/**
 * Lists the declarations a tool's types use, directly or through other declarations, in the
 * order they are written, so `describe` can print a tool with everything it refers to.
 */
export function declarationsUsedBy(
  tool: ToolDescriptor,
  declarations: DeclarationIndex,
): DeclarationEntry[] {
  const seen = new Set<string>();
  const pending = identifiersIn(`${tool.inputType ?? ""} ${tool.outputType}`)
    .filter((name) => declarations.has(name));
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (seen.has(name)) continue;
    seen.add(name);
    for (const ref of declarations.get(name)?.references ?? []) pending.push(ref);
  }
  return [...declarations.values()].filter((entry) => seen.has(entry.name));
}

const DECLARATION_HEAD =
  /^(?:export\s+)?(?:declare\s+)?(?:default\s+)?(?:abstract\s+)?(const\s+enum|interface|type|enum|class|namespace|module|function|const|let|var)\s+([A-Za-z_$][\w$]*)/;
const STATEMENT_START =
  /^(?:export|declare|interface|type|enum|class|namespace|module|function|const|let|var|abstract)\b/;
const BLOCK_KINDS = new Set(["interface", "enum", "const enum", "class", "namespace", "module"]);

function statementEnd(code: string, at: { start: number; block: boolean }): number {
  const { start, block } = at;
  let depth = 0;
  let opened = false;
  for (let i = start; i < code.length; i++) {
    const c = code[i];
    if (c === "{" || c === "[" || c === "(") {
      if (c === "{" && depth === 0) opened = true;
      depth++;
    } else if (c === "}" || c === "]" || c === ")") {
      depth = Math.max(0, depth - 1);
      if (block && opened && depth === 0) return code[i + 1] === ";" ? i + 2 : i + 1;
    } else if (depth === 0 && c === ";") {
      return i + 1;
    } else if (depth === 0 && c === "\n" && !block) {
      const rest = code.slice(i + 1, i + 200).trimStart();
      if (STATEMENT_START.test(rest) || rest === "") return i;
    }
  }
  return code.length;
}

/**
 * Reads the top-level declarations of a namespace's `declarations` text (interfaces, type
 * aliases, enums …) with their JSDoc, the declarations each refers to, and a one-line form for
 * inlining. A tolerant scanner: text it cannot read is skipped, never an error.
 */
export function parseDeclarations(text: string): DeclarationIndex {
  const { code, noComments } = maskSource(text);
  const found: Array<{ name: string; text: string; inline: string | null; body: string }> = [];
  let pos = 0;
  while (pos < code.length) {
    const start = code.slice(pos).search(/\S/);
    if (start < 0) break;
    const at = pos + start;
    const head = DECLARATION_HEAD.exec(code.slice(at, at + 300));
    const kind = head?.[1]?.replace(/\s+/g, " ") ?? "";
    const end = Math.max(at + 1, statementEnd(code, { start: at, block: BLOCK_KINDS.has(kind) }));
    if (head !== null && head[2] !== undefined) {
      const leading = text.slice(pos, at);
      const docStart = leading.lastIndexOf("/**");
      const doc = docStart < 0 ? "" : `${leading.slice(docStart).trim()}\n`;
      const statement = noComments.slice(at, end);
      found.push({
        name: head[2],
        text: doc + text.slice(at, end).trim(),
        inline: inlineForm(kind, statement),
        body: code.slice(at, end),
      });
    }
    pos = end;
  }
  const names = new Set(found.map((entry) => entry.name));
  const index = new Map<string, DeclarationEntry>();
  for (const entry of found) {
    const refs = new Set<string>();
    for (const match of entry.body.matchAll(/[A-Za-z_$][\w$]*/g)) {
      if (match[0] !== entry.name && names.has(match[0])) refs.add(match[0]);
    }
    const prior = index.get(entry.name);
    index.set(entry.name, {
      name: entry.name,
      text: prior === undefined ? entry.text : `${prior.text}\n${entry.text}`,
      inline: prior === undefined ? entry.inline : null,
      references: [...new Set([...(prior?.references ?? []), ...refs])].sort(compareText),
    });
  }
  return index;
}

function inlineForm(kind: string, statement: string): string | null {
  if (kind === "interface") {
    const match = /^(?:export\s+)?(?:declare\s+)?interface\s+[\w$]+\s*\{/.exec(statement);
    if (match === null) return null;
    return collapse(statement.slice(match[0].length - 1).replace(/;\s*$/, ""));
  }
  if (kind === "type") {
    const match = /^(?:export\s+)?(?:declare\s+)?type\s+[\w$]+\s*=/.exec(statement);
    if (match === null) return null;
    return collapse(statement.slice(match[0].length).replace(/;\s*$/, ""));
  }
  return null;
}
