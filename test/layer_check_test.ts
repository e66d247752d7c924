import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { checkLayers, importsOf } from "./layer_check.ts";

/** Writes a tiny `src/` tree (path → text) into a temp dir and returns its path. */
async function tree(files: Record<string, string>): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "layer_check_" });
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(dirname(join(root, path)), { recursive: true });
    await Deno.writeTextFile(join(root, path), text);
  }
  return root;
}

async function problemsOf(files: Record<string, string>): Promise<string[]> {
  const root = await tree(files);
  try {
    return await checkLayers(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("`importsOf()` finds static, type, re-export, side-effect and dynamic imports", () => {
  const text = [
    'import { a } from "./a.ts";',
    'import type { B } from "../b.ts";',
    'export { c } from "./c.ts";',
    'import "./d.ts";',
    'const e = await import("./e.ts");',
    'import { f } from "npm:f";',
  ].join("\n");
  assert.deepEqual(importsOf(text), ["./a.ts", "../b.ts", "./c.ts", "./d.ts", "./e.ts"]);
});

Deno.test("`checkLayers()` passes a tree whose imports all point downstream", async () => {
  const problems = await problemsOf({
    "server/s.ts": 'import { x } from "../exec/e.ts";',
    "exec/e.ts": 'import { y } from "../protocol/p.ts";\nexport const x = y;',
    "exec/runner/r.ts": 'import { v } from "../../protocol/v.ts";',
    "protocol/v.ts": "export const v = 1;",
    "protocol/p.ts": 'import { z } from "../config/c.ts";\nexport const y = z;',
    "config/c.ts": "export const z = 1;",
  });
  assert.deepEqual(problems, []);
});

Deno.test("`checkLayers()` reports an import back up the layers, naming file and areas", async () => {
  const problems = await problemsOf({
    "store/s.ts": 'import type { K } from "../workflows/w.ts";',
    "workflows/w.ts": "export type K = string;",
    "discovery/d.ts": 'import { n } from "../exec/e.ts";',
    "exec/e.ts": "export const n = 1;",
  });
  assert.equal(problems.length, 2);
  assert.match(
    problems[0]!,
    /^discovery\/d\.ts imports \.\.\/exec\/e\.ts: discovery\/ is downstream/,
  );
  assert.match(problems[1]!, /^store\/s\.ts imports \.\.\/workflows\/w\.ts: store\/ must not/);
});

Deno.test("`checkLayers()` forbids peers of one rank from importing each other", async () => {
  const problems = await problemsOf({
    "exec/e.ts": 'import { w } from "../workflows/w.ts";',
    "workflows/w.ts": "export const w = 1;",
  });
  assert.equal(problems.length, 1);
  assert.match(problems[0]!, /exec\/ and workflows\/ are peers/);
});

Deno.test("`checkLayers()` reports an unknown area so RANK is kept complete", async () => {
  const problems = await problemsOf({
    "server/s.ts": 'import { x } from "../gadgets/g.ts";',
    "gadgets/g.ts": "export const x = 1;",
  });
  assert.equal(problems.length, 1);
  assert.match(problems[0]!, /unknown area "gadgets"/);
});

Deno.test("`checkLayers()` follows the runner's imports transitively and names the chain", async () => {
  const problems = await problemsOf({
    "exec/runner/r.ts": 'import { p } from "../../protocol/p.ts";',
    // Allowed by ranks (protocol may import config), but the runner must load protocol only.
    "protocol/p.ts": 'import { c } from "../config/c.ts";\nexport const p = c;',
    "config/c.ts": "export const c = 1;",
  });
  assert.deepEqual(problems, [
    "exec/runner/r.ts → protocol/p.ts → config/c.ts: the script runner (src/exec/runner/) " +
    "may load only src/protocol/ (its way back to the gateway is the socket)",
  ]);
});

Deno.test("a file over 400 lines is reported unless its top says why", async () => {
  const long = Array.from({ length: 401 }, (_, i) => `export const v${i} = ${i};`).join("\n");
  const problems = await problemsOf({
    "exec/long.ts": `${long}\n`,
    "exec/long_with_reason.ts":
      `/** One table. (Over 400 lines: one generated table.) */\n${long}\n`,
    "exec/short.ts": "export const a = 1;\n",
  });
  assert.equal(problems.length, 1, problems.join("\n"));
  assert.match(problems[0]!, /^exec\/long\.ts: 401 lines, over 400/);
});

Deno.test("`checkLayers()` reports a tool called anywhere but through the dispatcher", async () => {
  const problems = await problemsOf({
    "server/tool_dispatcher.ts":
      "const claimed = registry.claimCalls();\nnamespace.callTool(t, a, o);",
    "server/gateway_core.ts": "return this.#dispatcher.callTool(n, t, a, o);",
    "server/methods/m.ts": "await context.core.callTool(n, t, a, o);",
    "namespaces/mcp/d.ts": "return real.callTool(tool, args, options);",
    "server/methods/sneaky.ts": "const ns = registry.get(n);\nawait ns.callTool(t, a, o);",
    "mcp_server/expose.ts": "await (ns as Namespace).callValue(t, a, o);",
    "exec/claim.ts": "const calls = core.registry.claimCalls();",
  });
  assert.deepEqual(problems.map((p) => p.split(": ")[0]), [
    "exec/claim.ts:1",
    "mcp_server/expose.ts:1",
    "server/methods/sneaky.ts:2",
  ]);
  assert.match(problems[0]!, /every call goes through the tool dispatcher/);
});
