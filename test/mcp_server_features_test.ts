import assert from "node:assert/strict";
// deno-lint-ignore no-import-prefix -- the v1 client (2025 era), a test-only package
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
// deno-lint-ignore no-import-prefix -- the v1 client (2025 era), a test-only package
import { StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
// deno-lint-ignore no-import-prefix -- the v1 client (2025 era), a test-only package
import { StdioClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/stdio.js";
import {
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  // deno-lint-ignore no-import-prefix -- the v1 client (2025 era), a test-only package
} from "npm:@modelcontextprotocol/sdk@1.32.2/types.js";
import { pollUntil } from "./support/poll_until.ts";
import { MAIN, withHarness } from "./support/gateway_harness.ts";
import { realServerBin } from "./fixtures/mcp/mcp_test_servers.ts";

const TOOL = `/** Adds two numbers. */
export function add(args: { a: number; b: number }): number {
  return args.a + args.b;
}
`;

const WORKFLOW = `description: Tidy the desk in two steps
steps:
  - title: Sort
    prompt: Sort the papers
  - title: File
    prompt: File them
`;

type Block = { type: string; text?: string; [key: string]: unknown };

function textOf(result: { content: unknown }): string {
  return (result.content as Block[]).filter((b) => b.type === "text").map((b) => b.text).join(
    "\n",
  );
}

function files(): Record<string, string> {
  const config = {
    port: 0,
    policy: [{ match: "everything.get-env", action: "deny" }],
    mcpServers: { everything: { command: "node", args: [realServerBin("everything")] } },
  };
  return {
    "tools/math.ts": TOOL,
    "gateway.json": JSON.stringify(config),
    "workflows/tidy.yaml": WORKFLOW,
  };
}

async function connect(url: URL, token: string): Promise<Client> {
  const client = new Client({ name: "test", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

async function whenReady(
  gw: { client(): Promise<{ request<T>(m: string): Promise<T>; close(): Promise<void> }> },
) {
  const client = await gw.client();
  try {
    await pollUntil("both namespaces to be ready", async () => {
      const ns = await client.request<{ namespaces: { status: string }[] }>("namespaces");
      return ns.namespaces.length >= 2 && ns.namespaces.every((n) => n.status === "ready");
    });
  } finally {
    await client.close();
  }
}

Deno.test("MCP code mode: resources, prompts, completions, logging, progress and the extra tools", async () => {
  await withHarness({ files: files() }, async (gw) => {
    const { port, token } = await gw.server();
    await whenReady(gw);
    const client = await connect(new URL(`http://127.0.0.1:${port}/mcp`), token);
    try {
      // Resources: guide, types per namespace, upstream resources namespaced.
      const { resources } = await client.listResources();
      const uris = resources.map((r: { uri: string }) => r.uri);
      assert.ok(uris.includes("gateway://guide"), uris.join(", "));
      assert.ok(uris.includes("gateway://types/math"), uris.join(", "));
      const upstream = uris.find((u: string) => u.startsWith("gateway://ns/everything/"));
      assert.ok(upstream, `no namespaced upstream resource in ${uris.join(", ")}`);
      const types = await client.readResource({ uri: "gateway://types/math" });
      assert.match(String(types.contents[0]?.text), /add/);
      const guide = await client.readResource({ uri: "gateway://guide" });
      assert.match(String(guide.contents[0]?.text), /math/);
      const read = await client.readResource({ uri: upstream });
      assert.equal(read.contents[0]?.uri, upstream);
      const { resourceTemplates } = await client.listResourceTemplates();
      assert.ok(
        resourceTemplates.some((t: { uriTemplate: string }) =>
          t.uriTemplate === "gateway://types/{namespace}"
        ),
      );
      // A subscription goes upstream, and the upstream's change comes back namespaced.
      const updated: string[] = [];
      client.setNotificationHandler(
        ResourceUpdatedNotificationSchema,
        (n: { params: { uri: string } }) => void updated.push(n.params.uri),
      );
      await client.subscribeResource({ uri: upstream });
      await client.callTool({
        name: "invoke",
        arguments: { path: "everything.toggle-subscriber-updates" },
      });
      await pollUntil(
        "resources/updated for the subscribed upstream resource",
        () => Promise.resolve(updated.includes(upstream) ? true : undefined),
        { last: () => updated },
      );
      await client.unsubscribeResource({ uri: upstream });
      const plain = await client.callTool({ name: "exec", arguments: { source: "1" } });
      const plainId = (plain.structuredContent as { runId: string }).runId;
      await assert.rejects(
        () => client.readResource({ uri: `gateway://runs/${plainId}/attachments/0` }),
        /has no attachments the gateway still holds/,
      );
      await assert.rejects(
        () => client.readResource({ uri: "gateway://nothing" }),
        /Unknown resource "gateway:\/\/nothing"/,
      );

      // Prompts: upstream ones namespaced, workflows as prompts.
      const { prompts } = await client.listPrompts();
      const names = prompts.map((p: { name: string }) => p.name);
      assert.ok(names.includes("everything__simple-prompt"), names.join(", "));
      assert.ok(names.includes("workflow__tidy"), names.join(", "));
      const tidy = await client.getPrompt({ name: "workflow__tidy", arguments: { session: "s1" } });
      assert.match(JSON.stringify(tidy.messages), /workflow_start.*tidy.*s1/);
      const simple = await client.getPrompt({ name: "everything__simple-prompt" });
      assert.ok(simple.messages.length > 0);
      await assert.rejects(
        () => client.getPrompt({ name: "nope" }),
        (e: { code?: number }) => e.code === -32602,
      );

      // Completions: the gateway's own template, and an upstream prompt's argument forwarded.
      const ns = await client.complete({
        ref: { type: "ref/resource", uri: "gateway://types/{namespace}" },
        argument: { name: "namespace", value: "ma" },
      });
      assert.deepEqual(ns.completion.values, ["math"]);
      const lead = await client.complete({
        ref: { type: "ref/prompt", name: "everything__completable-prompt" },
        argument: { name: "name", value: "" },
        context: { arguments: { department: "Engineering" } },
      });
      assert.deepEqual(lead.completion.values, ["Alice", "Bob", "Charlie"]);

      // Logging and progress while a run goes on.
      const logs: unknown[] = [];
      client.setNotificationHandler(
        LoggingMessageNotificationSchema,
        (n: { params: unknown }) => void logs.push(n.params),
      );
      await client.setLoggingLevel("info");
      const progress: { progress: number; message?: string }[] = [];
      const streamed = await client.callTool(
        {
          name: "exec",
          arguments: {
            source:
              "console.log('first'); console.log('second'); await tools.math.add({ a: 3, b: 4 })",
          },
        },
        undefined,
        { onprogress: (p: { progress: number; message?: string }) => void progress.push(p) },
      );
      assert.match(textOf(streamed), /first\nsecond\n7/);
      assert.ok(
        logs.some((l) => JSON.stringify(l).includes("first")),
        `log notifications: ${JSON.stringify(logs)}`,
      );
      assert.ok(
        progress.some((p) => (p.message ?? "").includes("first")),
        `progress: ${JSON.stringify(progress)}`,
      );
      // The run's tool calls are announced as they start and end.
      const messages = progress.map((p) => p.message ?? "");
      assert.ok(messages.includes("math.add: called"), messages.join("\n"));
      assert.ok(
        messages.some((m) => /^math\.add: answered after \d+ ms$/.test(m)),
        messages.join("\n"),
      );
      const steps = progress.map((p) => p.progress);
      assert.deepEqual(steps, [...steps].sort((a, b) => a - b), "progress only increases");

      // exec takes the CLI's options: a permission beyond the ceiling is refused.
      const refused = await client.callTool({
        name: "exec",
        arguments: { source: "1", permissions: { run: true } },
      });
      assert.equal(refused.isError, true);
      assert.match(textOf(refused), /^error\[PermissionRefused\]/);

      // describe, history list/show.
      const described = await client.callTool({
        name: "describe",
        arguments: { path: "math.add" },
      });
      assert.match(textOf(described), /add/);
      const history = await client.callTool({ name: "history", arguments: { limit: 5 } });
      const runs = (history.structuredContent as { runs: { runId: string }[] }).runs;
      assert.ok(runs.length >= 1);
      const shown = await client.callTool({
        name: "history",
        arguments: { action: "show", id: runs[0]!.runId },
      });
      assert.match(textOf(shown), new RegExp(runs[0]!.runId));
      const filtered = await client.callTool({
        name: "history",
        arguments: { kind: "PermissionRefused" },
      });
      const refusedRuns = (filtered.structuredContent as { runs: { errorKind: string }[] }).runs;
      assert.deepEqual(refusedRuns.map((r) => r.errorKind), ["PermissionRefused"]);
      await assert.rejects(
        () => client.callTool({ name: "history", arguments: { action: "show" } }),
        (e: { code?: number; message: string }) =>
          e.code === -32602 && /needs "id"/.test(e.message),
      );

      // A yielded run: wait for it, and cancel another.
      const yielded = await client.callTool({
        name: "exec",
        arguments: {
          source: "await new Promise((r) => setTimeout(r, 1500)); 'late'",
          yieldAfterMs: 10,
        },
      });
      const runId = (yielded.structuredContent as { runId: string; status: string }).runId;
      assert.equal((yielded.structuredContent as { status: string }).status, "running");
      const waited = await client.callTool({ name: "wait", arguments: { runId } });
      assert.match(textOf(waited), /late/);
      const long = await client.callTool({
        name: "exec",
        arguments: { source: "await new Promise((r) => setTimeout(r, 60000))", yieldAfterMs: 10 },
      });
      const longId = (long.structuredContent as { runId: string }).runId;
      const cancelled = await client.callTool({ name: "cancel", arguments: { runId: longId } });
      assert.match(textOf(cancelled), /"cancelled": true/);

      // A request the MCP client cancels cancels its run.
      const abort = new AbortController();
      const cancelledCall = client.callTool(
        {
          name: "exec",
          arguments: {
            source: "console.log('started'); await new Promise((r) => setTimeout(r, 60000))",
          },
        },
        undefined,
        {
          signal: abort.signal,
          onprogress: (p: { message?: string }) => {
            if (p.message?.includes("started")) abort.abort();
          },
        },
      );
      await assert.rejects(() => cancelledCall, /abort/i);
      const rpc = await gw.client();
      try {
        await pollUntil("the cancelled run in history", async () => {
          const { runs } = await rpc.request<{ runs: { errorKind: string; preview: string }[] }>(
            "history.list",
            { limit: 5 },
          );
          return runs.find((r) => r.errorKind === "Cancelled" && r.preview.includes("started"));
        });
      } finally {
        await rpc.close();
      }

      // Workflows: start, step, status.
      const started = await client.callTool({
        name: "workflow_start",
        arguments: { file: "tidy", session: "mcp" },
      });
      assert.match(textOf(started), /Sort the papers/);
      const stepped = await client.callTool({
        name: "workflow_step",
        arguments: { session: "mcp" },
      });
      assert.match(textOf(stepped), /File them/);
      const status = await client.callTool({
        name: "workflow_status",
        arguments: { session: "mcp" },
      });
      assert.match(textOf(status), /File/);
    } finally {
      await client.close();
    }
  });
});

Deno.test("MCP proxy exposure lists upstream tools as <namespace>__<tool>, over /mcp?expose=tools and gateway mcp --expose tools", async () => {
  await withHarness({ files: files() }, async (gw) => {
    const { port, token } = await gw.server();
    await whenReady(gw);
    const client = await connect(new URL(`http://127.0.0.1:${port}/mcp?expose=tools`), token);
    try {
      const { tools } = await client.listTools();
      const names = tools.map((t: { name: string }) => t.name);
      assert.ok(names.includes("everything__echo"), names.join(", "));
      assert.ok(names.includes("math__add"), names.join(", "));
      const echoed = await client.callTool({
        name: "everything__echo",
        arguments: { message: "hi" },
      });
      assert.match(textOf(echoed), /hi/);
      const added = await client.callTool({ name: "math__add", arguments: { a: 1, b: 2 } });
      assert.match(textOf(added), /3/);
      // The upstreams' log messages reach the client, named by namespace.
      const upstreamLogs: { logger?: string; data: unknown }[] = [];
      client.setNotificationHandler(
        LoggingMessageNotificationSchema,
        (n: { params: { logger?: string; data: unknown } }) => void upstreamLogs.push(n.params),
      );
      await client.setLoggingLevel("debug");
      await client.callTool({ name: "everything__toggle-simulated-logging", arguments: {} });
      await pollUntil(
        "a log message from the everything upstream",
        () =>
          Promise.resolve(
            upstreamLogs.find((l) => l.logger === "everything" && /message/.test(String(l.data))),
          ),
        { last: () => upstreamLogs },
      );

      // Policy applies: a denied tool answers an isError result naming the kind.
      const denied = await client.callTool({ name: "everything__get-env", arguments: {} });
      assert.equal(denied.isError, true);
      assert.match(textOf(denied), /^error\[PolicyDenied\]/);
      await assert.rejects(
        () => client.callTool({ name: "everything__nope", arguments: {} }),
        (e: { code?: number }) => e.code === -32602,
      );
    } finally {
      await client.close();
    }
    // Proxy calls are kept in history like one-call scripts.
    const rpc = await gw.client();
    try {
      const { runs } = await rpc.request<
        { runs: { runId: string; client: string; preview: string }[] }
      >(
        "history.list",
        { limit: 10 },
      );
      const proxied = runs.filter((r) => r.client === "mcp-proxy").map((r) => r.preview);
      assert.ok(proxied.some((p) => p.includes('tools["everything"]["echo"]')), proxied.join("\n"));
      assert.ok(proxied.some((p) => p.includes('tools["math"]["add"]')), proxied.join("\n"));
      // With what the call answered, for the run details.
      const addRun = runs.find((r) => r.preview.includes('tools["math"]["add"]'));
      assert.ok(addRun);
      const stored = await rpc.request<{ toolCalls: { result?: string }[] }>("history.get", {
        id: addRun.runId,
      });
      assert.match(stored.toolCalls[0]?.result ?? "", /3/);
    } finally {
      await rpc.close();
    }

    const stdio = new Client({ name: "test", version: "1" });
    await stdio.connect(
      new StdioClientTransport({
        command: Deno.execPath(),
        args: [
          "run",
          "--allow-all",
          "--no-prompt",
          "--quiet",
          MAIN,
          "--root",
          gw.root,
          "mcp",
          "--expose",
          "tools",
        ],
        env: {
          GATEWAY_DATA_DIR: gw.dataDir,
          PATH: Deno.env.get("PATH") ?? "",
          HOME: Deno.env.get("HOME") ?? "",
        },
        stderr: "pipe",
      }),
    );
    try {
      const added = await stdio.callTool({ name: "math__add", arguments: { a: 20, b: 22 } });
      assert.match(textOf(added), /42/);
    } finally {
      await stdio.close();
    }
  });
});

Deno.test("gateway mcp --expose takes code, tools or a configured namespace; anything else is a usage error naming them", async () => {
  await withHarness(
    { files: { "gateway.json": '{ "port": 0 }\n', "tools/math.ts": TOOL } },
    async (gw) => {
      const result = await gw.cli(["mcp", "--expose", "everything"]);
      assert.equal(result.code, 2);
      // One line: what to write instead, and where the usage is.
      assert.match(
        result.stderr,
        /^error\[Usage\]: Unknown exposure "everything": use code, tools, or a configured namespace \(math\).* \(see gateway mcp --help\)\n$/,
      );
    },
  );
});
