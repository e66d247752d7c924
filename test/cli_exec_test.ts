/**
 * End-to-end: the ways `gateway exec` and `gateway run` take a script (argument, `-`, piped
 * stdin, a file, a named script) and arguments, and how they report a failing script: exit 1
 * and one `error[Kind]: message` line on stderr.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { withHarness } from "./support/gateway_harness.ts";

const FILES = {
  "gateway.json": '{ "port": 0 }\n',
  "tools/echo.ts":
    "/** Echo. @module */\n/** Echoes. */\nexport function echo(args: { value: string }): string {\n  return args.value;\n}\n",
  "scripts/greet.ts":
    '/**\n * Greets.\n * @param name who\n */\nconsole.log(`Hello, ${args.join(" and ")}!`);\n',
};

Deno.test("gateway exec and run take source and arguments every documented way", async (t) => {
  await withHarness({ files: FILES }, async (gw) => {
    await t.step("exec prints stdout, then the last expression's value", async () => {
      const result = await gw.cli(["exec", 'console.log("out"); ({ a: [1, 2] })']);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, 'out\n{\n  "a": [\n    1,\n    2\n  ]\n}\n');
      assert.equal(result.stderr, "");
    });

    await t.step("exec - reads the source from stdin", async () => {
      const result = await gw.cli(["exec", "-"], {
        stdin: 'const v = await tools.echo.echo({ value: "piped source" });\nv.toUpperCase()',
      });
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, "PIPED SOURCE\n");
    });

    await t.step(
      "piped stdin with a source argument reaches stdin().json() and stdin().lines()",
      async () => {
        const json = await gw.cli(
          ["exec", "(stdin().json() as { items: number[] }).items.length"],
          {
            stdin: '{"items": [1, 2, 3]}',
          },
        );
        assert.equal(json.code, 0, json.stderr);
        assert.equal(json.stdout, "3\n");
        const lines = await gw.cli(["exec", "stdin().lines().length"], { stdin: "a\nb\n" });
        assert.equal(lines.stdout, "2\n", lines.stderr);
      },
    );

    await t.step("exec FILE.ts runs the file with the arguments after --", async () => {
      const file = join(gw.cwd, "sum.ts");
      await Deno.writeTextFile(file, "args.map(Number).reduce((a, b) => a + b, 0)\n");
      const result = await gw.cli(["exec", "sum.ts", "--", "2", "3", "4"]);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, "9\n");
      const missing = await gw.cli(["exec", "missing.ts"]);
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /Cannot read script file ".*missing\.ts": it does not exist/);
    });

    await t.step(
      "run FILE args (and gateway FILE.ts args) runs a script file with its arguments",
      async () => {
        const file = join(gw.cwd, "echo_args.ts");
        await Deno.writeTextFile(file, 'console.log(args.join("|"));\n');
        const result = await gw.cli(["run", "./echo_args.ts", "a", "b c", "--flag"]);
        assert.equal(result.code, 0, result.stderr);
        assert.equal(result.stdout, "a|b c|--flag\n");
        const direct = await gw.cli(["echo_args.ts", "x", "y"]);
        assert.equal(direct.code, 0, direct.stderr);
        assert.equal(direct.stdout, "x|y\n");
      },
    );

    await t.step("run NAME args runs a named script from ROOT/scripts", async () => {
      const result = await gw.cli(["run", "greet", "Ada", "Grace"]);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, "Hello, Ada and Grace!\n");
      const unknown = await gw.cli(["run", "nope"]);
      assert.notEqual(unknown.code, 0);
      assert.match(unknown.stderr, /^error\[\w+\]: .*nope/);
    });

    await t.step("a script that throws exits 1 with error[ScriptError] and its line", async () => {
      const result = await gw.cli(["exec", 'console.log("before");\nthrow new Error("it broke")']);
      assert.equal(result.code, 1);
      assert.equal(result.stdout, "before\n");
      assert.match(result.stderr, /^error\[ScriptError\]: .*it broke.* \(line 2(:\d+)?\)\n$/m);
    });

    await t.step("a script that does not type-check exits 1 with error[CheckFailed]", async () => {
      const result = await gw.cli(["exec", 'const n: number = "text"; n']);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /^error\[CheckFailed\]: /m);
    });

    await t.step("a script calling an unknown tool exits 1 naming it", async () => {
      const result = await gw.cli(["exec", "--no-check", "await tools.echo.shout({})"]);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /^error\[UnknownTool\]: .*shout/m);
    });

    await t.step("--json prints the run document and keeps exit code 1 on failure", async () => {
      const result = await gw.cli(["exec", "--json", 'throw new Error("json failure")']);
      assert.equal(result.code, 1);
      const run = JSON.parse(result.stdout);
      assert.equal(run.ok, false);
      assert.equal(run.error.kind, "ScriptError");
      assert.match(run.error.message, /json failure/);
      assert.equal(typeof run.runId, "string");
    });

    await t.step("a run past --timeout exits 124 with error[Timeout]", async () => {
      const result = await gw.cli(["exec", "--timeout", "500", "while (true) {}"]);
      assert.equal(result.code, 124, result.stderr);
      assert.match(result.stderr, /^error\[Timeout\]: /m);
    });
  });
});
