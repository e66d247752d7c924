import assert from "node:assert/strict";
import { stripMarkdownFence } from "./markdown_fence.ts";

Deno.test("stripMarkdownFence() blanks a ```ts fence and keeps every line number", () => {
  const stripped = stripMarkdownFence("```ts\nconst a = 1;\na\n```\n");
  assert.equal(stripped.source, "\nconst a = 1;\na\n\n");
  assert.match(stripped.warning ?? "", /fences \(lines 1 and 4\) were stripped/);
});

Deno.test("stripMarkdownFence() accepts bare, tilde and longer fences with blank lines around", () => {
  assert.equal(stripMarkdownFence("\n```\n1\n```").source, "\n\n1\n");
  assert.equal(stripMarkdownFence("~~~typescript\n1\n~~~").source, "\n1\n");
  assert.equal(stripMarkdownFence("````js\n1\n````\n\n").source, "\n1\n\n\n");
});

Deno.test("stripMarkdownFence() leaves a script alone without a matching pair of fences", () => {
  for (const source of ["1 + 1", "```ts\n1", "1\n```", "const s = `\n```\n`;", "```ts\n1\n~~~"]) {
    assert.deepEqual(stripMarkdownFence(source), { source, warning: null });
  }
});
