/**
 * End-to-end proof of named scripts: `gateway run NAME args`, `gateway NAME.ts`,
 * `gateway scripts` with the JSDoc description, `@param` and `@example` lines, `scripts init`,
 * nearest names for a missing script, and names that would leave `scripts/` refused.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { RpcError } from "../src/protocol/json_rpc.ts";
import {
  parseRun,
  type RunDocument,
  runTestRoot,
  withRunHarness,
} from "./support/run_test_support.ts";

const GREET = `/**
 * Greets someone by name.
 *
 * @param name who to greet
 * @param greeting the word to use (default "Hello")
 * @example gateway run greet World
 * @example gateway run greet World Hi
 */
const [who = "world", greeting = "Hello"] = args;
console.log(\`\${greeting}, \${who}! (\${Deno.args.length} args)\`);
who.length
`;

const FAILS = `/** Fails on line 5. */
const a = 1;
function f(): never {
  // the next line throws
  throw new Error(\`failed with \${a}\`);
}
f();
`;

Deno.test("named scripts run by name, list their docs and stay inside scripts/", {
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  const files = await runTestRoot({
    kv: true,
    files: {
      "scripts/greet.ts": GREET,
      "scripts/reports/daily.ts": `/** The daily report. */\nconsole.log("daily", args[0]);\n`,
      "scripts/fails.ts": FAILS,
      "outside.ts": `console.log("LEAKED");\n`,
    },
  });
  await withRunHarness({ files }, async (gw) => {
    await t.step("gateway run NAME args runs the script with its arguments", async () => {
      const result = await gw.cli(["run", "greet", "Bob", "Hey"]);
      assert.equal(result.stderr, "");
      assert.equal(result.stdout, "Hey, Bob! (2 args)\n");
      assert.equal(result.code, 0);
      const nested = await gw.cli(["run", "reports/daily", "--verbose"]);
      assert.equal(nested.stdout, "daily --verbose\n");
    });

    await t.step("gateway NAME.ts is the same as gateway run NAME", async () => {
      const result = await gw.cli(["greet.ts", "Ann"]);
      assert.equal(result.stdout, "Hello, Ann! (1 args)\n");
      assert.equal(result.code, 0);
    });

    await t.step(
      "a named script reports through stdout; its last expression is no result",
      async () => {
        const result = await gw.cli(["run", "--json", "greet", "Cy"]);
        const doc = parseRun(result.stdout);
        assert.equal(doc.ok, true);
        assert.equal("result" in doc, false);
        const client = await gw.client();
        try {
          const stored = await client.request<{ name: string; args: string[] }>("history.get", {
            id: doc.runId,
          });
          assert.equal(stored.name, "greet");
          assert.deepEqual(stored.args, ["Cy"]);
        } finally {
          await client.close();
        }
      },
    );

    await t.step("a failing named script points at its own line", async () => {
      const result = await gw.cli(["run", "--json", "fails"]);
      assert.equal(result.code, 1);
      const doc = parseRun(result.stdout);
      assert.equal(doc.error?.kind, "ScriptError");
      assert.equal(doc.error?.message, "Error: failed with 1");
      assert.equal(doc.error?.line, 5);
    });

    await t.step("gateway scripts lists the description, @param and @example lines", async () => {
      const result = await gw.cli(["scripts"]);
      assert.equal(result.code, 0);
      assert.match(
        result.stdout,
        /^greet\n {4}Greets someone by name\.\n {4}arg name: who to greet\n {4}arg greeting: the word to use \(default "Hello"\)\n {4}e\.g\. gateway run greet World\n {4}e\.g\. gateway run greet World Hi\n/m,
      );
      assert.match(result.stdout, /^reports\/daily\n {4}The daily report\.\n/m);
      const json = JSON.parse((await gw.cli(["scripts", "--json"])).stdout) as {
        scripts: Array<
          { name: string; description: string; examples: string[]; params: unknown[] }
        >;
      };
      const greet = json.scripts.find((s) => s.name === "greet");
      assert.deepEqual(greet?.examples, ["gateway run greet World", "gateway run greet World Hi"]);
      assert.deepEqual(greet?.params, [
        { name: "name", description: "who to greet" },
        { name: "greeting", description: 'the word to use (default "Hello")' },
      ]);
    });

    await t.step("gateway scripts init NAME writes a script that runs", async () => {
      const init = await gw.cli(["scripts", "init", "hello-kv"]);
      assert.equal(init.code, 0, init.stderr);
      assert.match(
        init.stdout,
        /created .*scripts\/hello-kv\.ts\nrun it with: gateway run hello-kv\n/,
      );
      const source = await Deno.readTextFile(join(gw.root, "scripts", "hello-kv.ts"));
      assert.match(source, /^\/\*\*\n \* Describe what hello-kv does/);
      const run = await gw.cli(["run", "hello-kv", "Zed"]);
      assert.equal(run.stdout, "Hello, Zed!\n", run.stderr);
      assert.equal(run.code, 0);
      const again = await gw.cli(["scripts", "init", "hello-kv"]);
      assert.equal(again.code, 2);
      assert.match(again.stderr, /exists already/);
      const evil = await gw.cli(["scripts", "init", "../evil"]);
      assert.equal(evil.code, 2);
      await assert.rejects(Deno.stat(join(gw.root, "evil.ts")), Deno.errors.NotFound);
    });

    await t.step("a missing script lists the nearest names", async () => {
      const result = await gw.cli(["run", "gret"]);
      assert.equal(result.code, 2);
      assert.match(
        result.stderr,
        /^error\[ScriptNameError\]: No script "gret" .*did you mean "greet"\?/m,
      );
      assert.equal(result.stdout, "");
    });

    await t.step("names that leave scripts/ are refused, by CLI and by RPC", async () => {
      await Deno.symlink(join(gw.root, "outside.ts"), join(gw.root, "scripts", "linked.ts"));
      for (
        const name of ["../outside", join(gw.root, "outside"), "reports/../../outside", "linked"]
      ) {
        const result = await gw.cli(["run", name]);
        assert.equal(result.code, 2, `${name}: ${result.stderr}`);
        assert.match(result.stderr, /^error\[ScriptNameError\]: Invalid script name/m);
        assert.doesNotMatch(result.stdout, /LEAKED/);
      }
      const client = await gw.client();
      try {
        for (const name of ["../outside", "/etc/passwd", "a\0b", "..%2f..%2foutside"]) {
          await assert.rejects(
            client.request<RunDocument>("run", { name }),
            (error: unknown) =>
              error instanceof RpcError && error.code === -32602 &&
              /^(Invalid script name|No script)/.test(error.message),
            name,
          );
        }
      } finally {
        await client.close();
      }
    });
  });
});
