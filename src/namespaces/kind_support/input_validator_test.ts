import assert from "node:assert/strict";
import { InputValidator } from "./input_validator.ts";

const echoSchema = {
  type: "object",
  properties: { message: { type: "string" } },
  required: ["message"],
  additionalProperties: false,
  $schema: "http://json-schema.org/draft-07/schema#",
};

Deno.test("`InputValidator` accepts arguments that match the schema", () => {
  const check = new InputValidator().compile(echoSchema);
  assert.deepStrictEqual(check({ message: "hi" }), []);
});

Deno.test("`InputValidator` names the argument path and the rule of each problem", () => {
  const check = new InputValidator().compile(echoSchema);
  assert.deepStrictEqual(check({ message: 3 }), ['"/message" must be string (type)']);
  assert.deepStrictEqual(check({}), ['"/message" is required (required)']);
  assert.deepStrictEqual(check({ message: "x", extra: 1 }), [
    '"/extra" is not allowed (additionalProperties)',
  ]);
});

Deno.test("`InputValidator` points into nested arrays and lists enum values", () => {
  const check = new InputValidator().compile({
    type: "object",
    properties: {
      items: {
        type: "array",
        items: {
          type: "object",
          properties: { mode: { enum: ["fast", "slow"] }, n: { type: "integer", minimum: 0 } },
        },
      },
    },
  });
  assert.deepStrictEqual(check({ items: [{ mode: "fast" }, { mode: "warp", n: -1 }] }), [
    '"/items/1/mode" must be one of "fast", "slow" (enum)',
    '"/items/1/n" must be >= 0 (minimum)',
  ]);
});

Deno.test("`InputValidator` treats a schema without $schema as JSON Schema 2020-12", () => {
  const check = new InputValidator().compile({
    type: "object",
    properties: {
      point: { type: "array", prefixItems: [{ type: "number" }, { type: "number" }], items: false },
    },
  });
  assert.deepStrictEqual(check({ point: [1, 2] }), []);
  assert.deepStrictEqual(check({ point: [1, "2"] }), ['"/point/1" must be number (type)']);
  assert.equal(check({ point: [1, 2, 3] }).length, 1);
});

Deno.test("`InputValidator` ignores unknown formats and keywords of loose upstream schemas", () => {
  const check = new InputValidator().compile({
    type: "object",
    properties: { when: { type: "string", format: "made-up" }, x: { "x-vendor": true } },
  });
  assert.deepStrictEqual(check({ when: "whenever", x: 1 }), []);
});

Deno.test("`InputValidator` caps the number of problems it reports", () => {
  const properties = Object.fromEntries(
    Array.from({ length: 8 }, (_, i) => [`p${i}`, { type: "string" }]),
  );
  const check = new InputValidator().compile({ type: "object", properties });
  const problems = check(Object.fromEntries(Object.keys(properties).map((k) => [k, 1])));
  assert.equal(problems.length, 6);
  assert.equal(problems[5], "and 3 more");
});

Deno.test("`InputValidator.compile()` throws a named error for a schema ajv cannot compile", () => {
  assert.throws(
    () => new InputValidator().compile({ type: "object", properties: { a: { $ref: "#/nope" } } }),
    /^Error: Cannot compile input schema: /,
  );
});
