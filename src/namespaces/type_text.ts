/**
 * Text-level helpers for TypeScript fragments the renderer embeds: JSDoc blocks, type text made
 * safe to nest, one-line forms, and a small masker that blanks comments and strings so the
 * fragments' structure can be read without a parser (the text comes from upstreams and from
 * the tool-module extractor, and is read on every catalogue change, so no compiler is loaded).
 * @module
 */

import { firstLine, type ToolDescriptor } from "../protocol/catalogue.ts";
import { maskSource } from "../protocol/source_mask.ts";

export { maskSource };

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

/** The lines of an `@example` block for {@linkcode renderJsDoc}. */
export function exampleBlock(lines: readonly string[]): string[] {
  return ["@example", "```ts", ...lines, "```"];
}
