/**
 * End-to-end: `gateway tools types NS[,NS]` (and `ns.tool`) prints declarations that a real
 * `deno check` accepts on their own and together with a script written against them, for a
 * subset of the namespaces (local modules and a real MCP server), with the namespaces at the
 * same level as in the full output.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO, withHarness } from "./support/gateway_harness.ts";
import { pollUntil } from "./support/poll_until.ts";

const MEMORY_SERVER = join(
  REPO,
  "test/servers/node_modules/@modelcontextprotocol/server-memory/dist/index.js",
);

/** Runs `deno check` on `file` with no config; answers its exit code and output. */
async function denoCheck(file: string): Promise<{ code: number; output: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["check", "--no-config", "--quiet", file],
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const text = new TextDecoder();
  return { code: out.code, output: text.decode(out.stdout) + text.decode(out.stderr) };
}

Deno.test("`gateway tools types` of a subset type-checks alone and with a script using it", async (t) => {
  const files = {
    "tools/kv.ts": await Deno.readTextFile(join(REPO, "tools/kv.ts")),
    "tools/sqlite.ts": await Deno.readTextFile(join(REPO, "tools/sqlite.ts")),
  };
  await withHarness({ files }, async (gw) => {
    const config = {
      port: 0,
      mcpServers: {
        graph: {
          command: "node",
          args: [MEMORY_SERVER],
          env: { MEMORY_FILE_PATH: join(gw.root, "graph.jsonl") },
        },
      },
    };
    await Deno.writeTextFile(join(gw.root, "gateway.json"), JSON.stringify(config));
    const client = await gw.client();
    try {
      await pollUntil("kv, sqlite and graph to be ready", async () => {
        const list = await client.request<{ namespaces: { name: string; status: string }[] }>(
          "namespaces",
          {},
        );
        return ["kv", "sqlite", "graph"].every((name) =>
          list.namespaces.some((ns) => ns.name === name && ns.status === "ready")
        );
      }, { timeoutMs: 60_000 });
    } finally {
      client.close();
    }
    const dir = await Deno.makeTempDir({ prefix: "gateway-types-" });
    try {
      await t.step("two namespaces of three", async () => {
        const listed = await gw.cli(["tools", "types", "kv,graph"]);
        assert.equal(listed.code, 0, listed.stderr);
        const types = join(dir, "kv_graph.d.ts");
        await Deno.writeTextFile(types, listed.stdout);
        assert.match(listed.stdout, /^interface GatewayTool</m, "the tool type is there");
        assert.match(listed.stdout, /^declare const tools: \{/m, "so is the tools global");
        assert.match(listed.stdout, /^declare namespace GatewayNamespaces \{\n/m);
        assert.match(
          listed.stdout,
          /^ {2}namespace graph \{/m,
          "namespaces where the full output has them",
        );
        assert.doesNotMatch(listed.stdout, /namespace sqlite/, "only what was asked for");
        const alone = await denoCheck(types);
        assert.equal(alone.code, 0, alone.output);
        const script = join(dir, "script.ts");
        await Deno.writeTextFile(
          script,
          [
            `/// <reference path="./kv_graph.d.ts" />`,
            'const value = await tools.kv.get({ key: "a" });',
            "const graph: GatewayNamespaces.graph.ReadGraphOutput = await tools.graph.read_graph();",
            "console.log(value, graph.entities.map((e) => e.name), args.length, stdin().text());",
            "export {};",
          ].join("\n"),
        );
        const together = await denoCheck(script);
        assert.equal(together.code, 0, together.output);
        // And a wrong call is still caught against these declarations alone.
        await Deno.writeTextFile(
          script,
          `/// <reference path="./kv_graph.d.ts" />\nawait tools.kv.get({ key: 1 });\nexport {};\n`,
        );
        const wrong = await denoCheck(script);
        assert.notEqual(wrong.code, 0, "a wrong argument fails the check");
        assert.match(wrong.output, /not assignable to type 'string'/);
      });
      await t.step("one tool by path", async () => {
        const listed = await gw.cli(["tools", "types", "graph.create_entities"]);
        assert.equal(listed.code, 0, listed.stderr);
        assert.match(listed.stdout, /create_entities: GatewayTool<CreateEntitiesInput/);
        assert.doesNotMatch(
          listed.stdout,
          /read_graph|ReadGraphOutput/,
          "the other tools left out",
        );
        const types = join(dir, "one_tool.d.ts");
        await Deno.writeTextFile(types, listed.stdout);
        const alone = await denoCheck(types);
        assert.equal(alone.code, 0, alone.output);
      });
      await t.step("an unknown name is refused, naming the namespaces", async () => {
        const listed = await gw.cli(["tools", "types", "kv,nope"]);
        assert.notEqual(listed.code, 0);
        assert.match(listed.stderr, /Unknown namespace "nope" \(known: .*graph.*kv/);
      });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
});
