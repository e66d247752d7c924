/**
 * The exposures beside code mode, end to end against server-everything: one namespace served as
 * itself (`/mcp?expose=everything`, `gateway mcp --expose everything`) under its own tool,
 * resource and prompt names, with policy and history applied; and the proxy's first
 * `tools/list` after a cold start, which holds every configured namespace's tools (the host
 * caches it) — also over the token bench's workload of 1,260 tools.
 * @module
 */

import assert from "node:assert/strict";
// deno-lint-ignore no-import-prefix -- the v1 client (2025 era), a test-only package
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
// deno-lint-ignore no-import-prefix -- the v1 client (2025 era), a test-only package
import { StdioClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/stdio.js";
// deno-lint-ignore no-import-prefix -- the v1 client (2025 era), a test-only package
import { StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
import { type GatewayHarness, MAIN, withHarness } from "./support/gateway_harness.ts";
import { realServerBin } from "./fixtures/mcp/mcp_test_servers.ts";
import { GITHUB_SPEC } from "./support/prism_server.ts";
import { modernRequest, resultText } from "./support/modern_mcp.ts";

const TOOL = `/** Adds two numbers. */
export function add(args: { a: number; b: number }): number {
  return args.a + args.b;
}
`;

const FILES = {
  "tools/math.ts": TOOL,
  "gateway.json": JSON.stringify({
    port: 0,
    policy: [{ match: "everything.get-env", action: "deny" }],
    mcpServers: { everything: { command: "node", args: [realServerBin("everything")] } },
  }),
};

function stdioClient(gw: GatewayHarness, expose: string): StdioClientTransport {
  return new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "--allow-all", "--no-prompt", "--quiet", MAIN, "--root", gw.root, "mcp"]
      .concat(["--expose", expose]),
    env: {
      GATEWAY_DATA_DIR: gw.dataDir,
      PATH: Deno.env.get("PATH") ?? "",
      HOME: Deno.env.get("HOME") ?? "",
      ...(Deno.env.get("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : {}),
    },
    stderr: "pipe",
  });
}

function textOf(result: { content?: unknown }): string {
  const blocks = (result.content ?? []) as Array<{ type: string; text?: string }>;
  return blocks.filter((b) => b.type === "text").map((b) => b.text).join("\n");
}

Deno.test("the proxy's first tools/list after a cold start holds every configured namespace's tools, over stdio and HTTP", async () => {
  await withHarness({ files: FILES }, async (gw) => {
    // No server yet: `gateway mcp` starts it, and lists at once.
    const stdio = new Client({ name: "cold", version: "1" });
    await stdio.connect(stdioClient(gw, "tools"));
    try {
      const names = (await stdio.listTools()).tools.map((t: { name: string }) => t.name);
      assert.ok(names.includes("everything__echo"), names.join(", "));
      assert.ok(names.includes("math__add"), names.join(", "));
    } finally {
      await stdio.close();
    }
    await gw.cli(["stop"]);
    const { port, token } = await gw.server();
    const listed = await modernRequest(
      `http://127.0.0.1:${port}/mcp?expose=tools`,
      token,
      "tools/list",
      {},
    );
    const names = (listed.result?.tools as { name: string }[]).map((t) => t.name);
    assert.ok(names.includes("everything__echo"), names.join(", "));
    assert.ok(names.includes("math__add"), names.join(", "));
  });
});

Deno.test("?expose=everything and gateway mcp --expose everything serve one namespace under its own names, with policy and history", async () => {
  await withHarness({ files: FILES }, async (gw) => {
    const { port, token } = await gw.server();
    const url = `http://127.0.0.1:${port}/mcp?expose=everything`;
    const client = new Client({ name: "one", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    try {
      const names = (await client.listTools()).tools.map((t: { name: string }) => t.name);
      assert.ok(names.includes("echo") && names.includes("get-env"), names.join(", "));
      assert.ok(
        !names.some((n: string) => n.includes("__") || n === "add" || n === "exec"),
        names.join(),
      );
      assert.match(
        textOf(await client.callTool({ name: "echo", arguments: { message: "hi" } })),
        /hi/,
      );
      const denied = await client.callTool({ name: "get-env", arguments: {} });
      assert.equal(denied.isError, true);
      assert.match(textOf(denied), /^error\[PolicyDenied\]/);

      const { resources } = await client.listResources();
      assert.ok(resources.length > 0);
      assert.ok(
        resources.every((r: { uri: string }) => !r.uri.startsWith("gateway://")),
        resources[0]?.uri,
      );
      const read = await client.readResource({ uri: resources[0]!.uri });
      assert.equal(read.contents[0]?.uri, resources[0]!.uri);
      await assert.rejects(
        () => client.readResource({ uri: "gateway://guide" }),
        // Resource not found: -32602 naming the URI (the SDK answers it so on every revision).
        (e: { code?: number; data?: { uri?: string } }) =>
          e.code === -32602 && e.data?.uri === "gateway://guide",
      );
      const { prompts } = await client.listPrompts();
      const simple = prompts.find((p: { name: string }) => p.name === "simple-prompt");
      assert.ok(simple, prompts.map((p: { name: string }) => p.name).join(", "));
      assert.ok((await client.getPrompt({ name: "simple-prompt" })).messages.length > 0);
    } finally {
      await client.close();
    }
    // The same namespace to a 2026-07-28 client.
    const modern = await modernRequest(url, token, "tools/call", {
      name: "echo",
      arguments: { message: "modern" },
    });
    assert.match(resultText(modern.result), /modern/);
    // Each call is in history as a proxied one.
    const history = await gw.cli(["history", "--json"]);
    const runs =
      (JSON.parse(history.stdout) as { runs: { client: string; preview: string }[] }).runs;
    assert.ok(
      runs.some((r) =>
        r.client === "mcp-proxy" && r.preview.includes('tools["everything"]["echo"]')
      ),
      history.stdout,
    );

    const stdio = new Client({ name: "one", version: "1" });
    await stdio.connect(stdioClient(gw, "everything"));
    try {
      const echoed = await stdio.callTool({ name: "echo", arguments: { message: "stdio" } });
      assert.match(textOf(echoed as { content: unknown }), /stdio/);
    } finally {
      await stdio.close();
    }

    const unknown = await fetch(`http://127.0.0.1:${port}/mcp?expose=nope`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: "{}",
    });
    assert.equal(unknown.status, 400);
    assert.match(
      await unknown.text(),
      /Unknown exposure \\"nope\\": use code, tools, or a configured namespace \(everything, math\)/,
    );
  });
});

Deno.test("the first tools/list of gateway mcp --expose tools after a cold start holds all 1,260 tools of server-everything, server-filesystem, server-memory and GitHub's REST API", async () => {
  await withHarness({ files: { "files/readme.txt": "hello\n" } }, async (gw) => {
    const config = {
      port: 0,
      mcpServers: {
        everything: { command: "node", args: [realServerBin("everything")] },
        filesystem: { command: "node", args: [realServerBin("filesystem"), `${gw.root}/files`] },
        memory: {
          command: "node",
          args: [realServerBin("memory")],
          env: { MEMORY_FILE_PATH: `${gw.root}/memory.jsonl` },
        },
      },
      apis: { github: { openapi: GITHUB_SPEC } },
    };
    await Deno.writeTextFile(`${gw.root}/gateway.json`, JSON.stringify(config));
    // No server yet: `gateway mcp` starts it, and the host lists at once.
    const client = new Client({ name: "cold", version: "1" });
    await client.connect(stdioClient(gw, "tools"));
    try {
      const names = (await client.listTools()).tools.map((t: { name: string }) => t.name);
      const counts: Record<string, number> = {};
      for (const name of names) {
        const namespace = name.split("__")[0]!;
        counts[namespace] = (counts[namespace] ?? 0) + 1;
      }
      // GitHub's 1,223 operations; server-everything's 12 tools and the two it adds for a client
      // that answers elicitation (form and URL), as the gateway does.
      assert.deepEqual(counts, { everything: 14, filesystem: 14, github: 1223, memory: 9 });
      assert.equal(names.length, 1260);
      assert.ok(names.includes("everything__trigger-elicitation-request"), names.join(", "));
    } finally {
      await client.close();
    }
  });
});
