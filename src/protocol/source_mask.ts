/**
 * A small masker for TypeScript fragments: blanks comments and string contents so their
 * structure can be scanned without a parser (the renderer, discovery and the sandboxed runner's
 * `describe()` all read type text this way; none loads a compiler for it).
 * @module
 */

/**
 * Blanks comments (both outputs) and string contents (`code` only) with spaces, keeping every
 * offset and newline, so structure can be scanned without a parser.
 *
 * @example
 * ```ts
 * import { maskSource } from "./source_mask.ts";
 * import assert from "node:assert/strict";
 * const { code, noComments } = maskSource('a: "x;y"; // note');
 * assert.equal(code, 'a: "   "; ' + " ".repeat(7));
 * assert.equal(noComments, 'a: "x;y"; ' + " ".repeat(7));
 * ```
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
