import assert from "node:assert/strict";
import {
  type PreparedScript,
  prepareScript,
  type PrepareScriptResult,
  type ScriptSyntaxError,
  sourceOf,
  toSourcePosition,
} from "./script_transform.ts";

function assertPrepared(result: PrepareScriptResult): PreparedScript {
  if (result.kind !== "Prepared") {
    throw new Error(`Expected a prepared script, got: ${JSON.stringify(result)}`);
  }
  return result;
}

function assertSyntaxError(result: PrepareScriptResult): ScriptSyntaxError {
  if (result.kind !== "SyntaxError") {
    throw new Error(`Expected a syntax error, got: ${JSON.stringify(result)}`);
  }
  return result;
}

/**
 * Runs prepared code as a module from a data: URL with a stub result function on globalThis,
 * and answers what the stub received (`[]` when it was never called).
 */
async function runPrepared(prepared: PreparedScript): Promise<unknown[]> {
  const received: unknown[] = [];
  const key = `__test_${crypto.randomUUID().replaceAll("-", "")}`;
  const slot = globalThis as unknown as Record<string, unknown>;
  slot[key] = (value: unknown) => received.push(value);
  const code = prepared.code.replaceAll(
    `globalThis.${prepared.resultFunction}(`,
    `globalThis.${key}(`,
  );
  try {
    await import(
      `data:application/typescript;base64,${
        btoa(String.fromCharCode(...new TextEncoder().encode(code)))
      }`
    );
  } finally {
    delete slot[key];
  }
  return received;
}

/** Every line outside `changed` (1-based, inclusive) is the same in source and code. */
function assertOtherLinesUnchanged(
  source: string,
  code: string,
  changed: { from: number; to: number },
) {
  const before = source.split("\n");
  const after = code.split("\n");
  assert.deepEqual(after.length, before.length);
  before.forEach((line, index) => {
    if (index + 1 < changed.from || index + 1 > changed.to) {
      assert.deepEqual(after[index], line, `line ${index + 1} changed`);
    }
  });
}

Deno.test("prepareScript() wraps the last expression statement in place when inline", async () => {
  const source = "const a = 20;\nconst b = 22;\na + b;\n";
  const prepared = assertPrepared(await prepareScript(source, { inline: true }));
  assert.deepEqual(
    prepared.code,
    "const a = 20;\nconst b = 22;\nglobalThis.__gatewayResult((a + b));\n",
  );
  assert.deepEqual(prepared.lastExpression, true);
  assertOtherLinesUnchanged(source, prepared.code, { from: 3, to: 3 });
  assert.deepEqual(await runPrepared(prepared), [42]);
});

Deno.test("prepareScript() leaves a named script untouched", async () => {
  const source = "const a = 1;\na + 1\n";
  const prepared = assertPrepared(await prepareScript(source, { inline: false }));
  assert.deepEqual(prepared.code, source);
  assert.deepEqual(prepared.lastExpression, false);
  assert.deepEqual(prepared.insertions, []);
});

Deno.test("prepareScript() captures an expression with no semicolon and a trailing comment", async () => {
  const source = "const x = { n: 7 }\nx.n * 6 // the answer\n// and a last comment\n";
  const prepared = assertPrepared(await prepareScript(source, { inline: true }));
  assert.deepEqual(
    prepared.code,
    "const x = { n: 7 }\nglobalThis.__gatewayResult((x.n * 6)) // the answer\n// and a last comment\n",
  );
  assert.deepEqual(await runPrepared(prepared), [42]);
});

Deno.test("prepareScript() captures a top-level await expression", async () => {
  const source = "const p = Promise.resolve('done');\nawait p;";
  const prepared = assertPrepared(await prepareScript(source, { inline: true }));
  assert.deepEqual(
    prepared.code,
    "const p = Promise.resolve('done');\nglobalThis.__gatewayResult((await p));",
  );
  assert.deepEqual(await runPrepared(prepared), ["done"]);
});

Deno.test("prepareScript() parses an ambiguous `await (x)` as top-level await", async () => {
  const prepared = assertPrepared(
    await prepareScript("const v = Promise.resolve(5);\nawait (v)", { inline: true }),
  );
  assert.deepEqual(await runPrepared(prepared), [5]);
});

Deno.test("prepareScript() keeps a multi-line last expression on its own lines", async () => {
  const source =
    "const items = [1, 2, 3];\nitems\n  .map((n) => n * 2)\n  .filter((n) => n > 2);\n";
  const prepared = assertPrepared(await prepareScript(source, { inline: true }));
  assertOtherLinesUnchanged(source, prepared.code, { from: 2, to: 4 });
  assert.deepEqual(prepared.code.split("\n").slice(1, 4), [
    "globalThis.__gatewayResult((items",
    "  .map((n) => n * 2)",
    "  .filter((n) => n > 2)));",
  ]);
  assert.deepEqual(await runPrepared(prepared), [[4, 6]]);
});

Deno.test("prepareScript() captures the value of an assignment at the end", async () => {
  const prepared = assertPrepared(await prepareScript("let x = 0;\nx = 1", { inline: true }));
  assert.deepEqual(prepared.lastExpression, true);
  assert.deepEqual(await runPrepared(prepared), [1]);
});

Deno.test("prepareScript() reads a last `{ a: 1, b: 2 }` as an object literal", async () => {
  const source = "const b = 2;\n{ a: 1, b } // object\n";
  const prepared = assertPrepared(await prepareScript(source, { inline: true }));
  assert.deepEqual(prepared.lastExpression, true);
  assertOtherLinesUnchanged(source, prepared.code, { from: 2, to: 2 });
  assert.deepEqual(await runPrepared(prepared), [{ a: 1, b: 2 }]);

  const twoKeys = assertPrepared(await prepareScript("{ a: 1, b: [2] };", { inline: true }));
  assert.deepEqual(await runPrepared(twoKeys), [{ a: 1, b: [2] }]);
});

Deno.test("prepareScript() reads a last `{ a: 1 }` block-with-label as an object literal", async () => {
  const prepared = assertPrepared(await prepareScript("{ a: 1 }", { inline: true }));
  assert.deepEqual(await runPrepared(prepared), [{ a: 1 }]);
});

Deno.test("prepareScript() leaves a real last block alone", async () => {
  const source = "let n = 0;\n{ n++; console.log(n) }\n";
  const prepared = assertPrepared(await prepareScript(source, { inline: true }));
  assert.deepEqual(prepared.code, source);
  assert.deepEqual(prepared.lastExpression, false);
});

Deno.test("prepareScript() gives no result for an empty script", async () => {
  for (const source of ["", "\n\n", "// only a comment\n"]) {
    const prepared = assertPrepared(await prepareScript(source, { inline: true }));
    assert.deepEqual(prepared.code, source);
    assert.deepEqual(prepared.lastExpression, false);
  }
});

Deno.test("prepareScript() gives no result when the last statement is a declaration", async () => {
  for (
    const source of ["1 + 1;\nconst x = 2;", "1;\nlet y = 3", "1;\nclass A {}", "1;\nif (true) 2;"]
  ) {
    const prepared = assertPrepared(await prepareScript(source, { inline: true }));
    assert.deepEqual(prepared.lastExpression, false, source);
    assert.deepEqual(prepared.code, source);
  }
});

Deno.test("prepareScript() skips trailing function and type declarations", async () => {
  const source = [
    "main();",
    "function main() { return 'from main'; }",
    "interface Shape { n: number }",
    "type Alias = Shape;",
    ";",
  ].join("\n");
  const prepared = assertPrepared(await prepareScript(source, { inline: true }));
  assert.deepEqual(prepared.lastExpression, true);
  assertOtherLinesUnchanged(source, prepared.code, { from: 1, to: 1 });
  assert.deepEqual(await runPrepared(prepared), ["from main"]);
});

Deno.test("prepareScript() uses the given result function name", async () => {
  const prepared = assertPrepared(
    await prepareScript("40 + 2", { inline: true, resultFunction: "__report" }),
  );
  assert.deepEqual(prepared.code, "globalThis.__report((40 + 2))");
  assert.deepEqual(prepared.resultFunction, "__report");
  assert.deepEqual(await runPrepared(prepared), [42]);
});

Deno.test("prepareScript() throws RangeError when the result function is not an identifier", async () => {
  await assert.rejects(
    () => prepareScript("1", { inline: true, resultFunction: "a.b" }),
    (error: unknown) =>
      error instanceof RangeError &&
      error.message.includes('result function "a.b" is not an identifier'),
  );
});

Deno.test("prepareScript() reports a syntax error at the script's own line and column", async () => {
  const result = assertSyntaxError(
    await prepareScript("const a = 1;\nconst b = ;\n", { inline: true }),
  );
  assert.deepEqual([result.line, result.column], [2, 11]);
  assert.deepEqual(result.message, "Expression expected.");
});

Deno.test("prepareScript() reports a syntax error for a named script too", async () => {
  const result = assertSyntaxError(
    await prepareScript("let ok = 1;\n\n  function (", { inline: false }),
  );
  assert.deepEqual(result.line, 3);
  assert.deepEqual(result.column, 12);
});

Deno.test("prepareScript() keeps reporting a syntax error before an object-literal tail", async () => {
  const result = assertSyntaxError(
    await prepareScript("const = 1;\n{ a: 1, b: 2 }", { inline: true }),
  );
  assert.deepEqual(result.line, 1);
});

Deno.test("toSourcePosition() maps positions in prepared code back to the source", async () => {
  const source = "const a = 1;\n  a + missing;\nfunction z() {}";
  const prepared = assertPrepared(await prepareScript(source, { inline: true }));
  assert.deepEqual(
    prepared.code,
    "const a = 1;\n  globalThis.__gatewayResult((a + missing));\nfunction z() {}",
  );
  // `missing` is at column 7 of line 2 in the source, column 35 in the code.
  assert.deepEqual(prepared.code.split("\n")[1]!.indexOf("missing") + 1, 35);
  assert.deepEqual(toSourcePosition(prepared, { line: 2, column: 35 }), { line: 2, column: 7 });
  // Inside the inserted prefix: the start of the expression.
  assert.deepEqual(toSourcePosition(prepared, { line: 2, column: 5 }), { line: 2, column: 3 });
  // Other lines are unchanged.
  assert.deepEqual(toSourcePosition(prepared, { line: 3, column: 7 }), { line: 3, column: 7 });
  assert.deepEqual(sourceOf(prepared), source);
});

Deno.test("prepareScript() reports a top-level return with the value to write instead", async () => {
  const error = assertSyntaxError(
    await prepareScript("const n = 2;\nreturn n * 2;", { inline: true }),
  );
  assert.deepEqual([error.line, error.column], [2, 1]);
  assert.match(error.message, /write `n \* 2` alone instead of `return n \* 2`/);
});

Deno.test("prepareScript() reports await in a callback that is not async", async () => {
  const error = assertSyntaxError(
    await prepareScript("const xs = [1];\nxs.map((x) => await Promise.resolve(x));", {
      inline: true,
    }),
  );
  assert.deepEqual([error.line, error.column], [2, 15]);
  assert.match(error.message, /make the callback passed to \.map\(\) `async`/);
  const named = assertSyntaxError(
    await prepareScript(
      "function f(xs: AsyncIterable<number>) {\n  for await (const x of xs) x;\n}",
      {
        inline: false,
      },
    ),
  );
  assert.match(named.message, /'for await' is used in a function that is not async \(line 1\)/);
});

Deno.test("prepareScript() accepts await in async callbacks and return inside functions", async () => {
  const source = "async function f() {\n  return [1].map(async (x) => await x);\n}\nawait f()";
  assertPrepared(await prepareScript(source, { inline: true }));
});

Deno.test("prepareScript() reports an unclosed bracket at the line where it opened", async () => {
  const brace = assertSyntaxError(
    await prepareScript("const xs = [1];\nfor (const x of xs) {\n  x;\n\nxs", { inline: true }),
  );
  assert.equal(brace.line, 2);
  assert.match(brace.message, /the '\{' opened at line 2 is never closed \(reached line 5\)/);
  const paren = assertSyntaxError(
    await prepareScript('console.log("a",\n  "b";\n1', { inline: true }),
  );
  assert.equal(paren.line, 1);
  assert.match(paren.message, /the '\(' opened at line 1 is never closed/);
});

Deno.test("prepareScript() strips Markdown fences and says so in its warnings", async () => {
  const result = assertPrepared(
    await prepareScript("```ts\nconst a = 2;\na * 21\n```", {
      inline: true,
    }),
  );
  assert.equal(result.lastExpression, true);
  assert.deepEqual(await runPrepared(result), [42]);
  assert.match(result.warnings?.[0] ?? "", /Markdown code fences/);
});
