/**
 * JSDoc text made short for the compact model surface: blocks cut to one line, descriptions
 * cut with "…", Markdown links reduced to their text. Used by `type_outline.ts` on the server
 * and in the sandboxed runner alike.
 * @module
 */

import { maskSource } from "./source_mask.ts";

/** Longest JSDoc line the compact form keeps; longer text is cut with "…". */
export const DOC_MAX_CHARS = 100;

/**
 * Cuts every JSDoc block of `text` to one line of at most `max` characters (tags dropped,
 * Markdown links reduced to their text); a block left empty is removed.
 *
 * @example
 * ```ts
 * import { shortenDocs } from "./jsdoc_text.ts";
 * import assert from "node:assert/strict";
 * const text = "interface A {\n  /**\n   * The owner. Not case sensitive.\n   * @format uri\n   *\/\n  owner: string;\n}";
 * assert.equal(shortenDocs(text), "interface A {\n  /** The owner. Not case sensitive. *\/\n  owner: string;\n}");
 * ```
 */
export function shortenDocs(text: string, max = DOC_MAX_CHARS): string {
  const { noComments } = maskSource(text);
  let out = "";
  let last = 0;
  for (let i = text.indexOf("/*"); i >= 0; i = text.indexOf("/*", i + 2)) {
    if (i < last || noComments[i] !== " ") continue;
    const close = text.indexOf("*/", i + 2);
    const end = close < 0 ? text.length : close + 2;
    const doc = docText(text.slice(i, end));
    const lineStart = text.lastIndexOf("\n", i) + 1;
    const onlyThing = text.slice(lineStart, i).trim() === "" &&
      /^[ \t]*(\r?\n|$)/.test(text.slice(end));
    if (doc === "") {
      // The whole line goes when the comment stood alone on it.
      out += onlyThing ? text.slice(last, lineStart) : text.slice(last, i);
      last = onlyThing ? Math.min(text.length, text.indexOf("\n", end) + 1 || text.length) : end;
    } else {
      out += `${text.slice(last, i)}/** ${cutText(doc, max).replaceAll("*/", "*\\/")} */`;
      last = end;
    }
    i = end - 2;
  }
  return out + text.slice(last);
}

/** The text of a JSDoc block: its lines without `*`, tags dropped, on one line. */
export function docText(comment: string): string {
  const lines = comment.replace(/^\/\*\*?/, "").replace(/\*\/$/, "").split(/\r?\n/)
    .map((line) => line.replace(/^\s*\*\s?/, "").trim());
  const kept: string[] = [];
  for (const line of lines) {
    if (line.startsWith("@")) break;
    kept.push(line);
  }
  return markdownText(kept.join(" ")).replace(/\s+/g, " ").trim();
}

/** Markdown links and emphasis reduced to their text. */
export function markdownText(text: string): string {
  return text.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1").replace(/\*\*([^*]+)\*\*/g, "$1")
    .replace(/(^|\s)_([^_\s][^_]*)_(?=[\s.,;:]|$)/g, "$1$2");
}

/** `text` cut at a word boundary to at most `max` characters, ending in "…" when cut. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:]+$/, "")}…`;
}

/** Lines as a JSDoc block: one line when there is one, else a starred block. */
export function jsDoc(lines: readonly string[]): string {
  const safe = lines.map((line) => line.replaceAll("*/", "*\\/"));
  if (safe.length === 1) return `/** ${safe[0]} */`;
  return `/**\n${safe.map((line) => ` * ${line}`).join("\n")}\n */`;
}
