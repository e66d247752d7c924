import assert from "node:assert/strict";
import {
  denoCheckScript,
  importsOnlyNodeBuiltins,
  parseDenoCheckOutput,
} from "./deno_check_oracle.ts";

Deno.test("importsOnlyNodeBuiltins() is true only for scripts importing node: modules alone", () => {
  assert.equal(importsOnlyNodeBuiltins('import { join } from "node:path";\njoin("a")'), true);
  assert.equal(importsOnlyNodeBuiltins('const fs = await import("node:fs");'), true);
  assert.equal(importsOnlyNodeBuiltins("1 + 1"), false);
  assert.equal(
    importsOnlyNodeBuiltins('import { join } from "node:path";\nimport x from "npm:left-pad";'),
    false,
  );
  assert.equal(importsOnlyNodeBuiltins('import "./helper.ts";'), false);
});

Deno.test("parseDenoCheckOutput() reads errors in the script only, without implicit any", () => {
  const text = [
    "TS2322 [ERROR]: Type 'string' is not assignable to type 'number'.",
    'const x: number = readFileSync("a", "utf8");',
    "      ^",
    "    at file:///tmp/c/script.ts:2:7",
    "",
    "TS7006 [ERROR]: Parameter 'row' implicitly has an 'any' type.",
    "    at file:///tmp/c/script.ts:3:12",
    "",
    "TS2304 [ERROR]: Cannot find name 'x'.",
    "    at file:///tmp/c/globals.d.ts:1:1",
  ].join("\n");
  assert.deepEqual(parseDenoCheckOutput(text, "/tmp/c/script.ts"), [
    {
      message: "Type 'string' is not assignable to type 'number'.",
      line: 2,
      column: 7,
      code: 2322,
    },
  ]);
});

Deno.test("denoCheckScript() types node: built-ins as deno check does", async () => {
  const scratchDir = await Deno.makeTempDir({ prefix: "gateway-deno-check-" });
  try {
    const globals = "declare const args: string[];\n";
    const wrong = await denoCheckScript({
      code:
        'import { readFileSync } from "node:fs";\nconst n: number = readFileSync(args[0]!, "utf8");\n',
      globals,
      scratchDir,
    });
    assert.equal(wrong?.length, 1);
    assert.deepEqual([wrong?.[0]?.line, wrong?.[0]?.column, wrong?.[0]?.code], [2, 7, 2322]);
    const right = await denoCheckScript({
      code: 'import { join } from "node:path";\nconsole.log(join(...args));\n',
      globals,
      scratchDir,
    });
    assert.deepEqual(right, []);
    assert.deepEqual([...Deno.readDirSync(scratchDir)], []);
  } finally {
    await Deno.remove(scratchDir, { recursive: true });
  }
});
