import assert from "node:assert/strict";
import type { Diagnostic } from "../protocol/run_document.ts";
import { argumentShape, FittingShapes, localInputProblem } from "./local_input_check.ts";

function checkAnswering(diagnostics: Diagnostic[], seen: string[] = []) {
  return (source: string) => {
    seen.push(source);
    return Promise.resolve(diagnostics);
  };
}

Deno.test("localInputProblem() checks the argument as a call of the tool", async () => {
  const seen: string[] = [];
  const problem = await localInputProblem(
    { namespace: "kv", tool: "get" },
    { key: 1 },
    checkAnswering([{
      message:
        "Type 'number' is not assignable to type 'string'; expected tools.kv.get({ key: string })",
      line: 1,
      column: 15,
      code: 2322,
    }], seen),
  );
  assert.deepEqual(seen, ['tools.kv.get({"key":1});\n']);
  assert.equal(
    problem,
    "Invalid input for tool \"kv.get\": Type 'number' is not assignable to type 'string'; expected tools.kv.get({ key: string })",
  );
});

Deno.test("localInputProblem() leaves the call to the tool when only the callee is in question", async () => {
  const onCallee = checkAnswering([{ message: "Unknown tool", line: 1, column: 10, code: 2339 }]);
  assert.equal(
    await localInputProblem({ namespace: "kv", tool: "get" }, {}, onCallee),
    undefined,
  );
  assert.equal(
    await localInputProblem({ namespace: "kv", tool: "get" }, {}, checkAnswering([])),
    null,
  );
  const big = { text: "x".repeat(70_000) };
  const never = () => Promise.reject(new Error("a large argument is not checked"));
  assert.equal(await localInputProblem({ namespace: "kv", tool: "set" }, big, never), undefined);
});

Deno.test("argumentShape() keeps short strings, booleans and structure; numbers and long strings stand for their type", () => {
  assert.equal(
    argumentShape({ id: 7, mode: "fast", on: true }),
    argumentShape({ id: 9, mode: "fast", on: true }),
  );
  assert.notEqual(argumentShape({ mode: "fast" }), argumentShape({ mode: "slow" }));
  assert.notEqual(argumentShape({ on: true }), argumentShape({ on: false }));
  assert.equal(argumentShape({ text: "a".repeat(100) }), argumentShape({ text: "b".repeat(100) }));
  assert.notEqual(argumentShape({ id: 1 }), argumentShape({ id: "1" }));
  assert.equal(argumentShape(undefined), "null");
});

Deno.test("argumentShape() makes every string its type when no string value decides", () => {
  assert.equal(
    argumentShape({ key: "a", tags: ["x"], on: true }, false),
    argumentShape({ key: "b", tags: ["y"], on: true }, false),
  );
  assert.notEqual(argumentShape({ key: "a" }, false), argumentShape({ key: 1 }, false));
  assert.notEqual(argumentShape({ on: true }, false), argumentShape({ on: false }, false));
  // The general path (a value JSON has no literal for) agrees.
  assert.equal(
    argumentShape({ key: "a", when: new Date(0) }, false),
    argumentShape({ key: "b", when: new Date(0) }, false),
  );
  const shapes = new FittingShapes();
  const path = { namespace: "kv", tool: "get" };
  assert.equal(shapes.key(path, { key: "a" }, false), shapes.key(path, { key: "b" }, false));
  assert.notEqual(shapes.key(path, { key: "a" }), shapes.key(path, { key: "b" }));
});

Deno.test("FittingShapes remembers a shape per tool and forgets on clear()", () => {
  const shapes = new FittingShapes();
  const key = shapes.key({ namespace: "kv", tool: "get" }, { key: "a" })!;
  assert.equal(shapes.has(key), false);
  shapes.add(key);
  assert.equal(shapes.has(key), true);
  assert.equal(shapes.has(shapes.key({ namespace: "kv", tool: "delete_" }, { key: "a" })!), false);
  shapes.clear();
  assert.equal(shapes.has(key), false);
});

Deno.test("argumentShape() gives plain JSON values the same text as the replacer walk", () => {
  const reference = (value: unknown) =>
    JSON.stringify(
      value ?? null,
      (_key, v: unknown) =>
        typeof v === "number"
          ? "\u0000number"
          : typeof v === "string" && v.length > 64
          ? "\u0000string"
          : v,
    );
  const values: unknown[] = [
    { id: 7, tags: ["a", "b"], nested: { on: false, none: null, text: "x".repeat(80) } },
    [1, "two", [true, { 'k"ey': "v" }]],
    "short",
    3.5,
    null,
    Object.assign(Object.create(null), { bare: 1 }),
  ];
  for (const value of values) assert.equal(argumentShape(value), reference(value));
  // Values JSON has no literal for still take the general path, as before.
  assert.equal(argumentShape({ when: new Date(0) }), reference({ when: new Date(0) }));
  assert.equal(argumentShape({ gone: undefined, n: 1 }), reference({ gone: undefined, n: 1 }));
});
