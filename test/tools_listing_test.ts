/**
 * End-to-end: `gateway tools` that starts the server answers once the configured namespaces
 * have settled (a real MCP server and a local module: "ready", not "starting"), and the same
 * listing from a running server comes from the CLI's fast path with the same text.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO, withHarness } from "./support/gateway_harness.ts";
import { parseSimpleTools } from "../src/cli/fast_tools.ts";

const MEMORY_SERVER = join(
  REPO,
  "test/servers/node_modules/@modelcontextprotocol/server-memory/dist/index.js",
);

Deno.test("`gateway tools` that started the server lists settled namespaces, not 'starting'", async () => {
  await withHarness({
    files: {
      "tools/math.ts":
        "/** Adds. */\nexport function add(args: { a: number; b: number }): number {\n  return args.a + args.b;\n}\n",
    },
  }, async (gw) => {
    await Deno.writeTextFile(
      join(gw.root, "gateway.json"),
      JSON.stringify({
        port: 0,
        mcpServers: {
          graph: {
            command: "node",
            args: [MEMORY_SERVER],
            env: { MEMORY_FILE_PATH: join(gw.root, "graph.jsonl") },
          },
        },
      }),
    );
    const first = await gw.cli(["tools"]);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /^graph\s+mcp\s+9 tools\s+ready$/m, first.stdout);
    assert.match(first.stdout, /^math\s+local\s+1 tool\s+ready$/m, first.stdout);
    assert.doesNotMatch(first.stdout, /starting/);
    // Against the running server: the fast path, the same listing.
    const again = await gw.cli(["tools"]);
    assert.equal(again.stdout, first.stdout);
    const json = JSON.parse((await gw.cli(["tools", "--json"])).stdout) as {
      namespaces: { name: string; status: string }[];
    };
    assert.deepEqual(json.namespaces.map((ns) => [ns.name, ns.status]).sort(), [
      ["graph", "ready"],
      ["math", "ready"],
    ]);
  });
});

Deno.test("parseSimpleTools() takes the listing's flags and leaves everything else to the full CLI", () => {
  assert.deepEqual(parseSimpleTools(["tools"]), { rootFlag: null, json: false, warnings: false });
  assert.deepEqual(parseSimpleTools(["--root", "/r", "tools", "--json", "--warnings"]), {
    rootFlag: "/r",
    json: true,
    warnings: true,
  });
  assert.equal(parseSimpleTools(["tools", "types", "kv"]), null);
  assert.equal(parseSimpleTools(["tools", "kv"]), null);
  assert.equal(parseSimpleTools(["tools", "--nope"]), null);
  assert.equal(parseSimpleTools(["exec", "1"]), null);
});
