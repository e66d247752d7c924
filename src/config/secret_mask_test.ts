import assert from "node:assert/strict";
import { maskSecrets, secretForms, SecretMask } from "./secret_mask.ts";

Deno.test("secretForms() keeps secrets of 4+ characters, JSON-escaped too, longest first", () => {
  assert.deepEqual(secretForms(["abc", 'x"quoted"', "long-secret-value"]), [
    "long-secret-value",
    'x\\"quoted\\"',
    'x"quoted"',
  ]);
});

Deno.test("maskSecrets() replaces every occurrence", () => {
  assert.equal(maskSecrets("a tok1 b tok1", ["tok1"]), "a [REDACTED] b [REDACTED]");
});

Deno.test("SecretMask.stringify() masks inside strings only, so JSON stays valid", () => {
  const mask = new SecretMask(() => ["9000", "sk-abcdef"]);
  const text = mask.stringify({ port: 9000, url: "http://h:9000/?k=sk-abcdef" });
  assert.deepEqual(JSON.parse(text), { port: 9000, url: "http://h:[REDACTED]/?k=[REDACTED]" });
  assert.deepEqual(mask.deep({ a: ["sk-abcdef"] }), { a: ["[REDACTED]"] });
});

Deno.test("SecretMask follows a changed secret list", () => {
  let list = ["first-secret"];
  const mask = new SecretMask(() => list);
  assert.equal(mask.mask("first-secret"), "[REDACTED]");
  list = ["second-secret"];
  assert.equal(mask.mask("first-secret second-secret"), "first-secret [REDACTED]");
});

Deno.test("SecretMask.stringify() finds a secret that JSON escapes, and leaves clean text as is", () => {
  const mask = new SecretMask(() => ['pa"ss\\word']);
  const text = mask.stringify({ note: 'say pa"ss\\word now', n: 1 });
  assert.deepEqual(JSON.parse(text), { note: "say [REDACTED] now", n: 1 });
  const clean = { a: "nothing here", b: [1, 2, { c: null }] };
  assert.equal(mask.stringify(clean), JSON.stringify(clean));
});
