/**
 * A GraphQL endpoint (a real graphql-js server started by the test) as an `apis` namespace,
 * driven from the CLI and the MCP surface: typed calls, discovery (tools, describe, LLM guide,
 * MCP `types`/`invoke`), the `writes: "deny"` override for mutations, and a live config edit.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
// deno-lint-ignore no-import-prefix -- the v1 client (2025 era), a test-only package
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
// deno-lint-ignore no-import-prefix -- the v1 client (2025 era), a test-only package
import { StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
import type { RunDocument } from "../src/protocol/run_document.ts";
import { startLibraryServer } from "./fixtures/graphql/library_graphql_server.ts";
import { withHarness } from "./support/gateway_harness.ts";
import { pollUntil } from "./support/poll_until.ts";

Deno.test("a GraphQL endpoint is a typed namespace in scripts and discovery", async () => {
  const server = startLibraryServer();
  try {
    const config = { port: 0, apis: { library: { graphql: server.url, writes: "deny" } } };
    await withHarness({ files: { "gateway.json": JSON.stringify(config) } }, async (gw) => {
      const run = await gw.cli([
        "exec",
        "--json",
        'const books = await tools.library.books({ genre: "HISTORY" });\nbooks.map((b) => `${b.title} by ${b.author?.name}`)',
      ]);
      const document = JSON.parse(run.stdout) as RunDocument;
      assert.equal(document.ok, true, run.stdout + run.stderr);
      assert.deepEqual(document.result, ["SPQR by Mary Beard"]);

      const wrong = JSON.parse(
        (await gw.cli(["exec", "--json", 'await tools.library.books({ genre: "POETRY" })'])).stdout,
      ) as RunDocument;
      assert.equal(wrong.error?.kind, "CheckFailed");

      const denied = JSON.parse(
        (await gw.cli([
          "exec",
          "--json",
          'await tools.library.addBook({ input: { title: "x", authorName: "y" } })',
        ])).stdout,
      ) as RunDocument;
      assert.equal(denied.error?.kind, "PolicyDenied");
      assert.match(denied.error?.message ?? "", /set "apis\.library\.writes" or a policy rule/);

      const listed = await gw.cli(["tools"]);
      assert.match(listed.stdout, /library\s+graphql\s+5 tools\s+ready/);
      const described = await gw.cli(["describe", "tools.library.addBook"]);
      assert.equal(described.code, 0, described.stderr);
      assert.match(described.stdout, /Adds a book and returns it/);
      const guide = await gw.cli(["--llm-help"]);
      assert.match(guide.stdout, /library.*GraphQL API/);

      // The MCP surface serves it like any other namespace.
      const { port, token } = await gw.server();
      const mcp = new Client({ name: "test", version: "1" });
      await mcp.connect(
        new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
        }),
      );
      try {
        const invoked = await mcp.callTool({
          name: "invoke",
          arguments: { path: "library.book", args: { id: "1", $select: "title" } },
        });
        assert.match(JSON.stringify(invoked.content), /Dune/);
        const types = await mcp.callTool({ name: "types", arguments: { namespaces: ["library"] } });
        assert.match(JSON.stringify(types.content), /BooksInput/);
      } finally {
        await mcp.close();
      }

      // An edited entry takes effect without a restart.
      const edited = {
        ...config,
        apis: { library: { ...config.apis.library, include: ["book"] } },
      };
      await Deno.writeTextFile(join(gw.root, "gateway.json"), JSON.stringify(edited));
      await pollUntil("the reloaded apis entry", async () => {
        const now = await gw.cli(["tools"]);
        return /library\s+graphql\s+1 tool\s+ready/.test(now.stdout) ? true : undefined;
      });
    });
  } finally {
    await server.stop();
  }
});
