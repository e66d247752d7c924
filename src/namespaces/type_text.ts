/**
 * Text-level helpers for TypeScript fragments the renderer embeds: JSDoc blocks, type text made
 * safe to nest, one-line forms, and a small masker that blanks comments and strings so the
 * fragments' structure can be read without a parser (the text comes from upstreams and from
 * the tool-module extractor, and is read on every catalogue change, so no compiler is loaded).
 * @module
 */

import { firstLine, type ToolDescriptor } from "../protocol/catalogue.ts";

/**
 * Formats lines as a JSDoc block at `indent`; `*\/` inside is escaped so upstream text cannot
 * end the comment early. Returns "" for no lines.
 */
export function renderJsDoc(lines: readonly string[], indent = ""): string {
  const safe = lines.flatMap((line) => line.split(/\r?\n/))
    .map((line) => line.replaceAll("*/", "*\\/").trimEnd());
  while (safe.length > 0 && safe[safe.length - 1] === "") safe.pop();
  while (safe.length > 0 && safe[0] === "") safe.shift();
  if (safe.length === 0) return "";
  if (safe.length === 1) return `${indent}/** ${safe[0]} */\n`;
  const body = safe.map((line) => (line === "" ? `${indent} *` : `${indent} * ${line}`));
  return `${indent}/**\n${body.join("\n")}\n${indent} */\n`;
}

/** The JSDoc lines of a tool: its description, then `@param args.<name>` per known property. */
export function toolDocLines(tool: ToolDescriptor): string[] {
  const lines = tool.description.trim() === "" ? [] : tool.description.trim().split(/\r?\n/);
  for (const param of tool.params) {
    const doc = firstLine(param.description);
    const optional = param.required ? "" : " (optional)";
    lines.push(`@param args.${param.name}${optional}${doc === "" ? "" : ` ${doc}`}`);
  }
  return lines;
}

/**
 * Makes type text safe to embed in other TypeScript: trimmed, `fallback` when empty, and a
 * newline after a trailing `// comment` so the text that follows is not swallowed by it.
 */
export function embeddableType(text: string | null, fallback = "unknown"): string {
  const trimmed = (text ?? "").trim();
  if (trimmed === "") return fallback;
  const endsInComment = maskSource(trimmed).code.trimEnd().length < trimmed.length;
  return endsInComment ? `${trimmed}\n` : trimmed;
}

/** Collapses whitespace and drops comments so a type fits on one line. */
export function oneLineType(typeText: string): string {
  return collapse(maskSource(typeText).noComments);
}

export function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim().replace(/;\s*\}/g, " }").replace(/\{\s+\}/g, "{}");
}

/** Every identifier-like word of a type, outside strings and comments. */
export function identifiersIn(typeText: string): string[] {
  return [...maskSource(typeText).code.matchAll(/[A-Za-z_$][\w$]*/g)].map((m) => m[0]);
}

/**
 * Blanks comments (both outputs) and string contents (`code` only) with spaces, keeping every
 * offset and newline, so structure can be scanned without a parser.
 */
export function maskSource(source: string): { code: string; noComments: string } {
  // Most type text has no comment or string at all: nothing to blank.
  if (!/[/"'`]/.test(source)) return { code: source, noComments: source };
  const special = /[/"'`]/g;
  const code: string[] = [];
  const noComments: string[] = [];
  const blank = (text: string) => text.replace(/[^\n]/g, " ");
  let i = 0;
  let from = 0;
  const flush = (to: number) => {
    const plain = source.slice(from, to);
    code.push(plain);
    noComments.push(plain);
  };
  while (i < source.length) {
    const c = source[i];
    const next = source[i + 1];
    if (c === "/" && (next === "/" || next === "*")) {
      flush(i);
      let end = next === "/" ? source.indexOf("\n", i) : source.indexOf("*/", i + 2);
      end = end < 0 ? source.length : next === "/" ? end : end + 2;
      const blanked = blank(source.slice(i, end));
      code.push(blanked);
      noComments.push(blanked);
      i = from = end;
    } else if (c === '"' || c === "'" || c === "`") {
      flush(i);
      let j = i + 1;
      while (j < source.length && source[j] !== c && (c === "`" || source[j] !== "\n")) {
        j += source[j] === "\\" ? 2 : 1;
      }
      j = Math.min(j, source.length);
      const closed = source[j] === c;
      const end = closed ? j + 1 : j;
      code.push(c + blank(source.slice(i + 1, closed ? j : end)) + (closed ? c : ""));
      noComments.push(source.slice(i, end));
      i = from = end;
    } else {
      // Skip to the next character that may open a comment or a string.
      special.lastIndex = i + 1;
      i = special.exec(source)?.index ?? source.length;
    }
  }
  flush(source.length);
  return { code: code.join(""), noComments: noComments.join("") };
}

/** The lines of an `@example` block for {@linkcode renderJsDoc}. */
export function exampleBlock(lines: readonly string[]): string[] {
  return ["@example", "```ts", ...lines, "```"];
}
