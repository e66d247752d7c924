import assert from "node:assert/strict";
import { prepareScript } from "./script_transform.ts";

/** Whether `source`, prepared as an inline snippet, is to run as JavaScript. */
async function runsAsJavaScript(source: string): Promise<boolean> {
  const prepared = await prepareScript(source, { inline: true });
  assert.equal(prepared.kind, "Prepared", `${source}: ${JSON.stringify(prepared)}`);
  return prepared.kind === "Prepared" && prepared.javaScript === true;
}

/** Forms a `.js` file would refuse or read otherwise: each keeps the script TypeScript. */
const TYPESCRIPT = [
  "const a: number = 1",
  "let x = y as any",
  "f<T>(x)",
  "f < T > (x)",
  "new Map<string, number>()",
  "x = <any>y",
  "x!",
  "a satisfies B",
  "interface A {}",
  "type T = 1",
  "enum E { A }",
  "namespace N {}",
  "declare const q: number",
  "function f(a?) {}",
  "function f(this: X) {}",
  "function f<T>() {}",
  "const a = <T,>(x: T) => x",
  "class A { private x = 1 }",
  "class A { declare x: number }",
  "class A { constructor(public x) {} }",
  "abstract class A {}",
  "let x!: number",
  "@dec class A {}",
  "class A { accessor x = 1 }",
  "using x = f()",
  "await using x = f()",
  "import x from './y.ts'; x",
  "import type { T } from 'x'",
  "export type { T }",
  "export const a = 1",
  "const a = 1; export { a }",
  "export default 1",
];

/** Plain JavaScript, however new: each runs as a `.js` file. */
const JAVASCRIPT = [
  "1 + 1",
  "console.log(1)",
  "await tools.kv.set({ key: 'a', value: 'b' }); await tools.kv.get({ key: 'a' })",
  "a < b > c",
  "class A { #x = 1; static { } }",
  "const { a, ...b } = c; for await (const x of y) {}",
  "a?.b ?? c",
  "a ||= b",
  "const re = /a/v",
  "1_000n ** 2n",
  "await import('x')",
  "import.meta.url",
  "const a = { async *g() { yield* [] } }",
  "try {} catch {}",
  "label: for (;;) break label",
  "({ a: 1, b: [2, 3] })",
  "const accessors = 1; accessors",
];

Deno.test("a script with TypeScript, decorators, `using`, `accessor`, imports or exports runs as TypeScript", async () => {
  for (const source of TYPESCRIPT) {
    assert.equal(await runsAsJavaScript(source), false, source);
  }
});

Deno.test("a script of plain JavaScript, however new, runs as JavaScript", async () => {
  for (const source of JAVASCRIPT) {
    assert.equal(await runsAsJavaScript(source), true, source);
  }
});

Deno.test("a named script is judged alike, and a syntax error leaves no verdict", async () => {
  const named = await prepareScript("const n = 1;\nconsole.log(n);\n", { inline: false });
  assert.equal(named.kind === "Prepared" && named.javaScript, true);
  const broken = await prepareScript("const = 1", { inline: true });
  assert.equal(broken.kind, "SyntaxError");
});
