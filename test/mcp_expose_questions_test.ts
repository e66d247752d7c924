/**
 * A namespace served as itself (`gateway mcp --expose NS`, `/mcp?expose=NS`) passes its
 * upstream's questions to the host, in the host's own era, and the host's answers back: a 2025
 * server's `elicitation/create` in the middle of a call (server-everything, whose call is held
 * upstream while the host answers) and a 2026-07-28 server's input-required rounds with their
 * signed state (the reference server) reach a v1 client as elicitation and sampling requests
 * and a v2 client in auto mode as input-required results. Log messages the upstream sends
 * during a call reach a 2025 host with the call, once. Each round goes through history.
 * @module
 */

import assert from "node:assert/strict";
// A test-only client, imported by full specifier (not in the import map the package exports).
// deno-lint-ignore no-import-prefix
import * as v2 from "npm:@modelcontextprotocol/client@2.4.0";
// deno-lint-ignore no-import-prefix
import * as v2stdio from "npm:@modelcontextprotocol/client@2.4.0/stdio";
// deno-lint-ignore no-import-prefix -- the v1 client (2025 era), a test-only package
import { Client as ClientV1 } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
// deno-lint-ignore no-import-prefix -- the v1 client (2025 era), a test-only package
import { StdioClientTransport as StdioV1 } from "npm:@modelcontextprotocol/sdk@1.32.2/client/stdio.js";
// deno-lint-ignore no-import-prefix -- the v1 client (2025 era), a test-only package
import { StreamableHTTPClientTransport as HttpV1 } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  type ElicitRequest,
  ElicitRequestSchema,
  type LoggingMessageNotification,
  LoggingMessageNotificationSchema,
  // deno-lint-ignore no-import-prefix -- the v1 client (2025 era), a test-only package
} from "npm:@modelcontextprotocol/sdk@1.32.2/types.js";
import { type GatewayHarness, MAIN, withHarness } from "./support/gateway_harness.ts";
import { fixtureConfig, realServerBin } from "./fixtures/mcp/mcp_test_servers.ts";
import { pollUntil } from "./support/poll_until.ts";

const FILES = {
  "gateway.json": JSON.stringify({
    port: 0,
    mcpServers: {
      everything: { command: "node", args: [realServerBin("everything")] },
      reference: fixtureConfig("reference_server.ts"),
    },
  }),
};

/** What a stdio client needs to start `gateway mcp --expose NS` for this harness. */
function stdioServer(
  gw: GatewayHarness,
  expose: string,
): { command: string; args: string[]; env: Record<string, string> } {
  return {
    command: Deno.execPath(),
    args: ["run", "--allow-all", "--no-prompt", "--quiet", MAIN, "--root", gw.root, "mcp"]
      .concat(["--expose", expose]),
    env: {
      GATEWAY_DATA_DIR: gw.dataDir,
      PATH: Deno.env.get("PATH") ?? "",
      HOME: Deno.env.get("HOME") ?? "",
      ...(Deno.env.get("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : {}),
    },
  };
}

function textOf(result: { content?: unknown }): string {
  const blocks = (result.content ?? []) as Array<{ type: string; text?: string }>;
  return blocks.filter((b) => b.type === "text").map((b) => b.text).join("\n");
}

async function bothReady(gw: GatewayHarness): Promise<void> {
  await pollUntil("both upstreams to be ready", async () => {
    const listed = JSON.parse((await gw.cli(["tools", "--json"])).stdout) as {
      namespaces: { name: string; status: string }[];
    };
    return listed.namespaces.length === 2 && listed.namespaces.every((n) => n.status === "ready");
  }, { timeoutMs: 30_000 });
}

/** A v1 (2025-11-25) client that answers elicitation with `name` and sampling with `said`. */
function v1Host(answers: { name: string; said: string }, asked: string[]): ClientV1 {
  const client = new ClientV1(
    { name: "v1-host", version: "1" },
    { capabilities: { elicitation: {}, sampling: {} } },
  );
  client.setRequestHandler(ElicitRequestSchema, (request: ElicitRequest) => {
    asked.push(`elicit: ${request.params.message}`);
    return { action: "accept", content: { name: answers.name } };
  });
  client.setRequestHandler(CreateMessageRequestSchema, () => {
    asked.push("sample");
    return {
      role: "assistant",
      model: "test-model",
      content: { type: "text", text: answers.said },
    };
  });
  return client;
}

/** A v2 client in auto mode answering elicitation with `name`. */
function v2Host(name: string, asked: string[]): v2.Client {
  const client = new v2.Client({ name: "v2-host", version: "1" }, {
    versionNegotiation: { mode: "auto" },
    capabilities: { elicitation: {} },
  });
  client.setRequestHandler("elicitation/create", (request) => {
    asked.push(`elicit: ${String(request.params.message)}`);
    return { action: "accept", content: { name, color: "teal" } };
  });
  return client;
}

Deno.test("a 2025 upstream's question in the middle of a call reaches the exposed namespace's host: a v1 client by elicitation, a v2 client by input-required rounds", async () => {
  await withHarness({ files: FILES }, async (gw) => {
    const { port, token } = await gw.server();
    await bothReady(gw);
    const call = { name: "trigger-elicitation-request", arguments: {} };

    const asked1: string[] = [];
    const v1 = v1Host({ name: "Ada", said: "" }, asked1);
    await v1.connect(new StdioV1({ ...stdioServer(gw, "everything"), stderr: "pipe" }));
    try {
      const result = await v1.callTool(call);
      assert.match(textOf(result), /- Name: Ada/, JSON.stringify(result));
      assert.deepEqual(asked1, ["elicit: Please provide inputs for the following fields:"]);
    } finally {
      await v1.close();
    }

    const asked2: string[] = [];
    const modern = v2Host("Grace", asked2);
    await modern.connect(
      new v2.StreamableHTTPClientTransport(
        new URL(`http://127.0.0.1:${port}/mcp?expose=everything`),
        { requestInit: { headers: { authorization: `Bearer ${token}` } } },
      ),
    );
    try {
      assert.equal(modern.getProtocolEra(), "modern");
      const result = await modern.callTool(call);
      assert.match(textOf(result), /- Name: Grace/, JSON.stringify(result));
      assert.deepEqual(asked2, ["elicit: Please provide inputs for the following fields:"]);
    } finally {
      await modern.close();
    }

    // Policy and history apply to every round: the question's round and the answer's.
    const history = JSON.parse((await gw.cli(["history", "--json", "--limit", "10"])).stdout) as {
      runs: { client: string; preview: string }[];
    };
    const rounds = history.runs.filter((r) =>
      r.client === "mcp-proxy" && r.preview.includes("trigger-elicitation-request")
    );
    assert.equal(rounds.length, 4, JSON.stringify(history.runs));
  });
});

Deno.test("a 2026-07-28 upstream's input-required rounds reach the exposed namespace's host as its era expects: a v2 client over stdio, a v1 client by elicitation and sampling", async () => {
  await withHarness({ files: FILES }, async (gw) => {
    const { port, token } = await gw.server();
    await bothReady(gw);

    const asked2: string[] = [];
    const modern = v2Host("Lin", asked2);
    await modern.connect(new v2stdio.StdioClientTransport(stdioServer(gw, "reference")));
    try {
      assert.equal(modern.getProtocolEra(), "modern");
      // Two rounds, the second carrying the upstream's signed state back.
      const result = await modern.callTool({
        name: "test_input_required_result_multi_round",
        arguments: {},
      });
      assert.equal(textOf(result), "Lin likes teal");
      assert.deepEqual(asked2, [
        "elicit: Step 1: What is your name?",
        "elicit: Step 2: What is your favorite color?",
      ]);
    } finally {
      await modern.close();
    }

    const asked1: string[] = [];
    const v1 = v1Host({ name: "Kay", said: "Paris" }, asked1);
    await v1.connect(
      new HttpV1(new URL(`http://127.0.0.1:${port}/mcp?expose=reference`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    try {
      const named = await v1.callTool({
        name: "test_input_required_result_elicitation",
        arguments: {},
      });
      assert.equal(textOf(named), "Hello, Kay!");
      const sampled = await v1.callTool({
        name: "test_input_required_result_sampling",
        arguments: {},
      });
      assert.equal(textOf(sampled), "The model said: Paris");
      assert.deepEqual(asked1, ["elicit: What is your name?", "sample"]);
    } finally {
      await v1.close();
    }
  });
});

Deno.test("an exposed upstream's log messages during a call reach a 2025 host with the call, once each", async () => {
  await withHarness({ files: FILES }, async (gw) => {
    await gw.server();
    await bothReady(gw);
    const client = new ClientV1({ name: "v1-logs", version: "1" });
    const logs: unknown[] = [];
    client.setNotificationHandler(
      LoggingMessageNotificationSchema,
      (n: LoggingMessageNotification) => void logs.push(n.params.data),
    );
    await client.connect(new StdioV1({ ...stdioServer(gw, "reference"), stderr: "pipe" }));
    try {
      await client.setLoggingLevel("info");
      const result = await client.callTool({ name: "test_tool_with_logging", arguments: {} });
      assert.equal(textOf(result), "Logging tool completed");
      assert.deepEqual(logs, [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
      ]);
      // A level above the messages' silences them.
      logs.length = 0;
      await client.setLoggingLevel("warning");
      await client.callTool({ name: "test_tool_with_logging", arguments: {} });
      assert.deepEqual(logs, []);
    } finally {
      await client.close();
    }
  });
});
