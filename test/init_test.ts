/**
 * End-to-end: `gateway init` makes `.gateway/{tools,scripts,workflows}` in the current
 * directory, and a later command run there (no `--root`) serves that root.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli, withHarness } from "./support/gateway_harness.ts";
import { minimalEnv } from "./support/bounded_cli.ts";
import { pollUntil } from "./support/poll_until.ts";

Deno.test("gateway init creates a project root that the next gateway exec there uses", async () => {
  await withHarness({}, async (gw) => {
    const project = join(gw.cwd, "project");
    const nested = join(project, "src", "deep");
    await Deno.mkdir(nested, { recursive: true });
    // No --root: the CLI must find .gateway/ from its working directory.
    const env = { ...minimalEnv(gw.dataDir), GATEWAY_PORT: "0" };
    const cli = (args: string[], cwd: string) => runCli(args, { env, cwd });

    await Deno.writeTextFile(join(project, ".mcp.json"), `{ "mcpServers": {} }\n`);
    const init = await cli(["init"], project);
    assert.equal(init.code, 0, init.stderr);
    const root = join(project, ".gateway");
    assert.equal((await Deno.stat(join(root, "gateway.env"))).mode! & 0o777, 0o600);
    assert.equal(await Deno.readTextFile(join(root, ".gitignore")), "gateway.env\n");
    assert.match(init.stdout, /serving the MCP servers of .*project\/\.mcp\.json/);
    for (const dir of ["tools", "scripts", "workflows"]) {
      assert.ok((await Deno.stat(join(root, dir))).isDirectory, `${dir}/ was not created`);
    }
    assert.ok((await Deno.stat(join(root, "gateway.json"))).isFile);
    assert.match(init.stdout, /created .*\.gateway\/tools\/hello\.ts/);

    const again = await cli(["init"], project);
    assert.equal(again.code, 0);
    assert.match(again.stdout, /kept .*hello\.ts \(exists\)/);

    const result = await cli(["exec", 'await tools.hello.greet({ name: "Ada" })'], nested);
    assert.equal(result.stderr, "");
    assert.equal(result.code, 0);
    assert.equal(result.stdout, '{\n  "message": "Hello, Ada!"\n}\n');
    const state = JSON.parse(await Deno.readTextFile(join(gw.dataDir, "server.json")));
    assert.equal(state.root, root);

    const script = await cli(["run", "hello", "Grace"], project);
    assert.equal(script.code, 0, script.stderr);
    assert.equal(script.stdout, "Hello, Grace!\n");
  });
});

Deno.test("every file gateway init writes works: the README's sample commands, the tool, the script, the workflow, gateway.env", async () => {
  await withHarness({}, async (gw) => {
    const project = join(gw.cwd, "fresh");
    await Deno.mkdir(project);
    const env = { ...minimalEnv(gw.dataDir), GATEWAY_PORT: "0" };
    const cli = async (args: string[]) => {
      const result = await runCli(args, { env, cwd: project });
      assert.equal(result.code, 0, `gateway ${args.join(" ")}: ${result.stderr}`);
      return result.stdout;
    };
    const init = await cli(["init"]);
    assert.match(
      init,
      /root ready: try gateway exec 'await tools\.hello\.greet\(\{ name: "Ada" \}\)'/,
    );
    const root = join(project, ".gateway");
    const written = [...init.matchAll(/^created (.*)$/gm)].map((m) => m[1]!.slice(root.length + 1));
    assert.deepEqual(written.sort(), [
      ".gitignore",
      "gateway.env",
      "gateway.json",
      "scripts/hello.ts",
      "tools/hello.ts",
      "workflows/sample.yaml",
    ]);

    // tools/hello.ts, as init's last line suggests; the loud flag of its JSDoc too.
    assert.equal(
      await cli(["exec", 'await tools.hello.greet({ name: "Ada" })']),
      '{\n  "message": "Hello, Ada!"\n}\n',
    );
    assert.match(
      await cli(["exec", 'await tools.hello.greet({ name: "Ada", loud: true })']),
      /HELLO, ADA!/,
    );
    assert.match(await cli(["tools"]), /^hello\s+local\s+1 tool\s+ready$/m);

    // Every namespace the help of exec, run and describe names is one this root has.
    for (const command of ["exec", "run", "describe"]) {
      const help = await cli([command, "--help"]);
      for (const [, ns] of help.matchAll(/tools\.([a-z_]+)\./g)) {
        assert.ok(
          ["hello", "NS", "ns"].includes(ns!),
          `gateway ${command} --help names tools.${ns}`,
        );
      }
    }

    // scripts/hello.ts: its JSDoc example runs as written, and `scripts` lists what it says.
    const scripts = await cli(["scripts"]);
    assert.match(scripts, /^hello\n {4}Greets someone through the sample tool/m);
    const example = /e\.g\. gateway (run hello World)/.exec(scripts)?.[1];
    assert.ok(example, scripts);
    assert.equal(await cli(example.split(" ")), "Hello, World!\n");

    // workflows/sample.yaml: the README's `gateway workflow start sample ; gateway workflow step`,
    // then through the loop to the end.
    assert.match(await cli(["workflow", "start", "sample"]), /Plan/);
    assert.match(await cli(["workflow", "step"]), /Implement/);
    assert.match(await cli(["workflow", "step", "--end-loop", "done"]), /Review/);
    assert.match(await cli(["workflow", "step"]), /complete/i);

    // gateway.json and gateway.env: a variable set in gateway.env reaches the config.
    await Deno.writeTextFile(join(root, "gateway.env"), "GREETING_TIMEOUT=90000\n", {
      append: true,
    });
    await Deno.writeTextFile(
      join(root, "gateway.json"),
      (await Deno.readTextFile(join(root, "gateway.json"))).replace(
        '"exec": { "timeoutMs": 120000 }',
        '"exec": { "timeoutMs": 120000 },\n  "history": { "redact": ["${env:GREETING_TIMEOUT}"] }',
      ),
    );
    // The value is a secret now: masked in what the server answers.
    const masked = await pollUntil("the edited config to load", async () => {
      const out = await cli(["exec", "'timeout 90000'"]);
      return out.includes("90000") ? undefined : out;
    });
    assert.match(masked, /^timeout \S+$/m);
  });
});
