/**
 * Markdown code fences around a pasted snippet: models often send
 * "```ts … ```" as the script. The fence lines are blanked so every other line keeps its number.
 * @module
 */

/** What {@linkcode stripMarkdownFence} answers. */
export interface StrippedFence {
  /** The source with the fence lines blanked (the source itself when there was no fence). */
  source: string;
  /** A warning for the run document, or null when nothing was stripped. */
  warning: string | null;
}

const OPENING = /^[ \t]*(`{3,}|~{3,})[ \t]*([\w+#.-]*)[ \t]*$/;

/**
 * Blanks an opening fence (three backticks or `~~~`, with or without a language such as `ts`) on
 * the first non-blank line and its closing fence on the last non-blank line, so a snippet pasted
 * from Markdown runs as written. Line numbers are kept: the fence lines become empty lines. A script with
 * only one of the two fences, or with fences elsewhere (inside a template string), is left
 * alone.
 *
 * @example
 * ```ts
 * import { stripMarkdownFence } from "./markdown_fence.ts";
 * import assert from "node:assert/strict";
 * const fence = "`".repeat(3); // a literal fence would end this example
 * assert.equal(stripMarkdownFence(`${fence}ts\n1 + 1\n${fence}`).source, "\n1 + 1\n");
 * ```
 */
export function stripMarkdownFence(source: string): StrippedFence {
  const lines = source.split("\n");
  const first = lines.findIndex((line) => line.trim() !== "");
  let last = lines.length - 1;
  while (last > first && lines[last]!.trim() === "") last--;
  if (first < 0 || last <= first) return { source, warning: null };
  const opening = OPENING.exec(lines[first]!.replace(/\r$/, ""));
  if (opening === null) return { source, warning: null };
  const fence = opening[1]!;
  const closing = lines[last]!.replace(/\r$/, "").trim();
  if (closing.length < fence.length || closing !== fence[0]!.repeat(closing.length)) {
    return { source, warning: null };
  }
  lines[first] = "";
  lines[last] = "";
  return {
    source: lines.join("\n"),
    warning: `Markdown code fences (lines ${first + 1} and ${last + 1}) were stripped: ` +
      "send the script itself, without the ``` lines",
  };
}
