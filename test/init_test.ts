/**
 * End-to-end: `gateway init` makes `.gateway/{tools,scripts,workflows}` in the current
 * directory, and a later command run there (no `--root`) serves that root.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli, withHarness } from "./support/gateway_harness.ts";
import { minimalEnv } from "./support/bounded_cli.ts";

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
    assert.match(script.stdout, /Grace/);
  });
});
