import assert from "node:assert/strict";
// deno-lint-ignore no-import-prefix -- the v1 client (2025 era), a test-only package
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
// deno-lint-ignore no-import-prefix -- the v1 client (2025 era), a test-only package
import { StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
// deno-lint-ignore no-import-prefix -- the v1 client (2025 era), a test-only package
import { StdioClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/stdio.js";
// deno-lint-ignore no-import-prefix -- the v1 client (2025 era), a test-only package
import { LoggingMessageNotificationSchema } from "npm:@modelcontextprotocol/sdk@1.32.2/types.js";
import { MAIN, withHarness } from "./support/gateway_harness.ts";
import { pollUntil } from "./support/poll_until.ts";

const TOOL = `/** Adds two numbers. */
export function add(args: { a: number; b: number }): number {
  return args.a + args.b;
}
`;

function textOf(result: { content: unknown }): string {
  const blocks = result.content as Array<{ type: string; text?: string }>;
  return blocks.filter((b) => b.type === "text").map((b) => b.text).join("\n");
}

Deno.test("the gateway serves MCP at /mcp: exec runs code, invoke calls a tool, and the token is required", async () => {
  await withHarness({ files: { "tools/math.ts": TOOL } }, async (gw) => {
    const { port, token } = await gw.server();
    const url = new URL(`http://127.0.0.1:${port}/mcp`);

    const anonymous = new Client({ name: "test", version: "1" });
    await assert.rejects(
      () => anonymous.connect(new StreamableHTTPClientTransport(url)),
      /401|Unauthorized/,
    );

    const client = new Client({ name: "test", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((t: { name: string }) => t.name).sort(),
        [
          "cancel",
          "catalog",
          "describe",
          "exec",
          "history",
          "invoke",
          "run_script",
          "search",
          "types",
          "wait",
          "workflow_start",
          "workflow_status",
          "workflow_step",
        ],
      );
      const exec = await client.callTool({
        name: "exec",
        arguments: { source: "console.log('hi'); await tools.math.add({ a: 2, b: 40 })" },
      });
      assert.equal(exec.isError, undefined);
      assert.match(textOf(exec), /hi\n42/, JSON.stringify(exec));
      assert.equal((exec.structuredContent as { ok: boolean }).ok, true);

      const failed = await client.callTool({
        name: "exec",
        arguments: { source: "throw new Error('nope')" },
      });
      assert.equal(failed.isError, true);
      assert.match(textOf(failed), /^error\[ScriptError\]: Error: nope \(line 1\)/);
      assert.equal(
        (failed.structuredContent as { ok: boolean; error: { kind: string } }).error.kind,
        "ScriptError",
      );

      const invoked = await client.callTool({
        name: "invoke",
        arguments: { path: "math.add", args: { a: 1, b: 2 } },
      });
      assert.equal(textOf(invoked), "3");

      const types = await client.callTool({ name: "types", arguments: { namespaces: ["math"] } });
      assert.match(textOf(types), /add/);

      // A caller's mistake is a protocol error (-32602) naming the tool and the argument.
      await assert.rejects(
        () => client.callTool({ name: "exec", arguments: { source: "1", nope: 1 } }),
        (error: { code?: number; message: string }) =>
          error.code === -32602 &&
          /Invalid arguments for tool "exec": unknown argument "nope"/.test(error.message),
      );
      await assert.rejects(
        () => client.callTool({ name: "exce", arguments: {} }),
        (error: { code?: number; message: string }) =>
          error.code === -32602 && /Unknown tool "exce" \(tools: exec,/.test(error.message),
      );
    } finally {
      await client.close();
    }
  });
});

Deno.test("gateway mcp serves the same tools on stdio through the running gateway", async () => {
  await withHarness({ files: { "tools/math.ts": TOOL } }, async (gw) => {
    await gw.server();
    const client = new Client({ name: "test", version: "1" });
    await client.connect(
      new StdioClientTransport({
        command: Deno.execPath(),
        args: ["run", "--allow-all", "--no-prompt", "--quiet", MAIN, "--root", gw.root, "mcp"],
        env: {
          GATEWAY_DATA_DIR: gw.dataDir,
          PATH: Deno.env.get("PATH") ?? "",
          HOME: Deno.env.get("HOME") ?? "",
        },
        stderr: "pipe",
      }),
    );
    try {
      const result = await client.callTool({
        name: "exec",
        arguments: { source: "await tools.math.add({ a: 20, b: 22 })" },
      });
      assert.equal(textOf(result), "42");

      // Output streams over stdio too: as log messages once a level is set, as progress.
      const logs: unknown[] = [];
      client.setNotificationHandler(
        LoggingMessageNotificationSchema,
        (n: { params: unknown }) => void logs.push(n.params),
      );
      await client.setLoggingLevel("info");
      // Each run lasts until its caller has seen its output, then the caller cancels it (the
      // MCP SDK's client drops a progress notification it reads in the same chunk as the
      // call's answer, so a run that ended at once could lose its output's on a loaded
      // machine), and cancelling the request over stdio cancels the run.
      const progress: unknown[] = [];
      await Promise.all(["one", "two"].map((word) => {
        const seen = new AbortController();
        return assert.rejects(
          () =>
            client.callTool(
              {
                name: "exec",
                arguments: {
                  source: `console.log("${word}"); await new Promise((r) => setTimeout(r, 60000))`,
                },
              },
              undefined,
              {
                signal: seen.signal,
                onprogress: (p: unknown) => {
                  progress.push({ word, p });
                  seen.abort();
                },
              },
            ),
          /abort/i,
        );
      }));
      assert.deepEqual(
        logs.map((l) => (l as { data: string }).data.trim()).sort(),
        ["one", "two"],
      );
      const rpc = await gw.client();
      try {
        await pollUntil("both cancelled stdio runs in history", async () => {
          const { runs } = await rpc.request<{ runs: { errorKind: string; preview: string }[] }>(
            "history.list",
            { limit: 5 },
          );
          const cancelled = runs.filter((r) => r.errorKind === "Cancelled");
          return ["one", "two"].every((word) => cancelled.some((r) => r.preview.includes(word)));
        });
      } finally {
        await rpc.close();
      }

      // Each call's progress carries its own run's output, never the other call's.
      assert.ok(progress.length >= 2, JSON.stringify(progress));
      for (const { word, p } of progress as { word: string; p: { message: string } }[]) {
        assert.match(p.message, new RegExp(word));
      }
    } finally {
      await client.close();
    }
  });
});
