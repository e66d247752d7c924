/**
 * One policy gate, whatever the surface: a rule that allows the real
 * `@modelcontextprotocol/server-filesystem`'s `write_file` only under `ROOT/out/**` gives the
 * same answer to a script, MCP `invoke`, `POST /call`, `/mcp?expose=tools` and
 * `gateway mcp --expose tools`, and a path that leaves `out/` by `..` is denied on each before
 * the server writes anything.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
// deno-lint-ignore no-import-prefix -- the v1 client (2025 era), a test-only package
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
// deno-lint-ignore no-import-prefix -- the v1 client (2025 era), a test-only package
import { StdioClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/stdio.js";
// deno-lint-ignore no-import-prefix -- the v1 client (2025 era), a test-only package
import { StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
import type { RunDocument } from "../src/protocol/run_document.ts";
import { type GatewayHarness, MAIN, REPO, withHarness } from "./support/gateway_harness.ts";
import { pollUntil } from "./support/poll_until.ts";

const FILESYSTEM = join(
  REPO,
  "test/servers/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
);

const CONFIG = {
  port: 0,
  mcpServers: { fs: { command: "node", args: [FILESYSTEM, "."], cwd: "." } },
  policy: [
    { match: "fs.write_file", action: "allow", when: { args: { path: { glob: "ROOT/out/**" } } } },
    { match: "fs.write_file", action: "deny" },
  ],
};

/** What one surface answered: allowed (the tool ran) or the error kind it reported. */
type Outcome = "ok" | string;

type Block = { type: string; text?: string };

function textOf(result: { content?: unknown }): string {
  return ((result.content ?? []) as Block[]).map((b) => b.text ?? "").join("\n");
}

/** An MCP tool result: ok, or the kind in its `error[Kind]` text. */
function mcpOutcome(result: { isError?: unknown; content?: unknown }): Outcome {
  if (result.isError !== true) return "ok";
  return /^error\[(\w+)\]/.exec(textOf(result))?.[1] ?? `isError: ${textOf(result)}`;
}

async function connect(url: URL, token: string): Promise<Client> {
  const client = new Client({ name: "policy-test", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

/** Every surface's way of calling `fs.write_file(args)`. */
function surfaces(gw: GatewayHarness, port: number, token: string, clients: {
  code: Client;
  proxy: Client;
  stdio: Client;
}): Record<string, (args: Record<string, unknown>) => Promise<Outcome>> {
  return {
    script: async (args) => {
      const run = await gw.cli([
        "exec",
        "--json",
        `await tools.fs.write_file(${JSON.stringify(args)})`,
      ]);
      const document = JSON.parse(run.stdout) as RunDocument;
      return document.ok ? "ok" : document.error?.kind ?? "no kind";
    },
    invoke: async (args) =>
      mcpOutcome(
        await clients.code.callTool({ name: "invoke", arguments: { path: "fs.write_file", args } }),
      ),
    "POST /call": async (args) => {
      const response = await fetch(`http://127.0.0.1:${port}/call`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ namespace: "fs", tool: "write_file", args }),
      });
      const body = await response.json() as { error?: { data?: { kind?: string } } };
      return response.ok ? "ok" : body.error?.data?.kind ?? `HTTP ${response.status}`;
    },
    "/mcp?expose=tools": async (args) =>
      mcpOutcome(await clients.proxy.callTool({ name: "fs__write_file", arguments: args })),
    "gateway mcp --expose tools": async (args) =>
      mcpOutcome(await clients.stdio.callTool({ name: "fs__write_file", arguments: args })),
  };
}

Deno.test("an argument-matching policy rule gives every surface the same decision on server-filesystem's write_file", async () => {
  await withHarness({
    files: { "gateway.json": JSON.stringify(CONFIG), "out/.keep": "" },
  }, async (gw) => {
    const root = await Deno.realPath(gw.root);
    const { port, token } = await gw.server();
    await pollUntil("the fs namespace to be ready", async () => {
      const listed = await gw.cli(["tools"]);
      return /fs\s+mcp\s+\d+ tools\s+ready/.test(listed.stdout) ? true : undefined;
    });
    const code = await connect(new URL(`http://127.0.0.1:${port}/mcp`), token);
    const proxy = await connect(new URL(`http://127.0.0.1:${port}/mcp?expose=tools`), token);
    const stdio = new Client({ name: "policy-test", version: "1" });
    await stdio.connect(
      new StdioClientTransport({
        command: Deno.execPath(),
        args: ["run", "--allow-all", "--no-prompt", "--quiet", MAIN, "--root", gw.root, "mcp"]
          .concat(["--expose", "tools"]),
        env: {
          GATEWAY_DATA_DIR: gw.dataDir,
          PATH: Deno.env.get("PATH") ?? "",
          HOME: Deno.env.get("HOME") ?? "",
        },
        stderr: "pipe",
      }),
    );
    try {
      const table: Record<string, Record<string, Outcome>> = {};
      for (
        const [surface, call] of Object.entries(surfaces(gw, port, token, { code, proxy, stdio }))
      ) {
        const slug = surface.replace(/\W+/g, "-");
        const cases = {
          inside: `${root}/out/${slug}.txt`,
          "out/../": `${root}/out/../escaped-${slug}.txt`,
          outside: `${root}/other-${slug}.txt`,
          relative: `out/relative-${slug}.txt`,
        };
        table[surface] = {};
        for (const [label, path] of Object.entries(cases)) {
          table[surface][label] = await call({ path, content: `written by ${surface}` });
        }
        assert.equal(
          await Deno.readTextFile(cases.inside),
          `written by ${surface}`,
          `${surface} wrote inside out/`,
        );
        for (const refused of [cases["out/../"], cases.outside, join(root, cases.relative)]) {
          await assert.rejects(Deno.stat(refused), Deno.errors.NotFound, `${surface}: ${refused}`);
        }
      }
      const expected = {
        inside: "ok",
        "out/../": "PolicyDenied",
        outside: "PolicyDenied",
        relative: "PolicyDenied",
      };
      for (const [surface, outcomes] of Object.entries(table)) {
        assert.deepEqual(outcomes, expected, `${surface}: ${JSON.stringify(table, null, 1)}`);
      }
    } finally {
      await code.close();
      await proxy.close();
      await stdio.close();
    }
  });
});
