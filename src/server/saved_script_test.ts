import assert from "node:assert/strict";
import { savedScriptText } from "./saved_script.ts";

const run = (source: string) => ({ runId: "r1", status: "ok", errorKind: null, source });

Deno.test("savedScriptText() prints a snippet's last expression as its run printed the result", async () => {
  const text = await savedScriptText(run("const a = 6;\na * 7"), "answer");
  assert.match(text, /^\/\*\*\n \* Saved from run r1\.\n \* @example gateway run answer\n \*\/\n/);
  assert.match(text, /\nconst a = 6;\nprintRunResult\(a \* 7\)\n/);
  assert.match(text, /function printRunResult\(value: unknown\): void/);
});

Deno.test("savedScriptText() keeps a script whose last statement has no value as it was", async () => {
  const text = await savedScriptText(run("const a = 1;\nconsole.log(a);\nlet b = a;"), "x");
  assert.ok(text.endsWith("const a = 1;\nconsole.log(a);\nlet b = a;\n"), text);
  assert.doesNotMatch(text, /printRunResult/);
});

Deno.test("savedScriptText() prints a trailing object literal and drops Markdown fences", async () => {
  const text = await savedScriptText(run("```ts\nconst n = 2;\n{ n, twice: n * 2 }\n```"), "o");
  assert.doesNotMatch(text, /```/);
  assert.match(text, /printRunResult\(\{ n, twice: n \* 2 \}\)/);
});

Deno.test("savedScriptText() keeps a named script's run as it was: its last expression printed nothing", async () => {
  const text = await savedScriptText({ ...run("const a = 1;\na * 2"), name: "twice" }, "again");
  assert.ok(text.endsWith("const a = 1;\na * 2\n"), text);
  assert.doesNotMatch(text, /printRunResult/);
});
