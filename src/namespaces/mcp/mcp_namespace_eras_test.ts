import assert from "node:assert/strict";
import { join } from "node:path";
import { McpNamespace } from "./mcp_namespace.ts";
import { Client, StreamableHTTPClientTransport } from "./mcp_sdk.ts";
import type { McpServerConfig } from "../../config/gateway_config.ts";
import type { LogMethods } from "../../logger.ts";
import type { ToolCallOptions } from "../namespace.ts";
import {
  callError,
  callOptions,
  fixtureConfig,
  realServerConfig,
  startHttpModernUpstream,
  startHttpRawModern,
} from "../../../test/fixtures/mcp/mcp_test_servers.ts";
import { pollUntil } from "../../../test/support/poll_until.ts";

function capturingLogger(): LogMethods & { lines: string[] } {
  const lines: string[] = [];
  const push = (message: string) => lines.push(message);
  return { lines, debug: push, info: push, warn: push, error: push };
}

/** Call options whose questions are answered `allowed`, each question kept in `asked`. */
function askingOptions(allowed: boolean, asked: unknown[]): ToolCallOptions {
  return {
    ...callOptions(),
    askUser: (question) => {
      asked.push(question);
      return Promise.resolve({ allowed, by: "test" });
    },
  };
}

const modernStdio = (env: Record<string, string> = {}): McpServerConfig =>
  fixtureConfig("modern_only_upstream.ts", { args: ["stdio"], env });

/** Each case runs against the 2026-only upstream over stdio and over HTTP. */
async function overBothTransports(
  run: (config: McpServerConfig, env: Record<string, string>) => Promise<void>,
  env: Record<string, string> = {},
): Promise<void> {
  await run(modernStdio(env), env);
  const http = await startHttpModernUpstream(env);
  try {
    await run({
      url: http.url,
      headers: {},
      transport: "auto",
      disabled: false,
      startTimeoutMs: 15_000,
    }, env);
  } finally {
    await http.stop();
  }
}

Deno.test("a 2026-07-28-only upstream refuses a 2025 client: it is the era under test", async () => {
  const http = await startHttpModernUpstream();
  const client = new Client({ name: "legacy-only", version: "1" });
  try {
    await assert.rejects(client.connect(new StreamableHTTPClientTransport(new URL(http.url))));
  } finally {
    await client.close().catch(() => {});
    await http.stop();
  }
});

Deno.test("`McpNamespace` serves a 2026-07-28-only upstream like any other, over stdio and HTTP", async () => {
  await overBothTransports(async (config) => {
    const ns = new McpNamespace("modern", config);
    try {
      await ns.start();
      assert.deepStrictEqual(ns.status(), { state: "ready" });
      assert.deepStrictEqual(ns.protocol, {
        era: "modern",
        version: "2026-07-28",
        fromKeptVerdict: false,
      });
      assert.equal((await ns.callTool("echo", { message: "hi" }, callOptions())).value, "Echo: hi");
      assert.deepStrictEqual((await ns.callTool("add", { a: 2, b: 3 }, callOptions())).value, {
        sum: 5,
      });
      const invalid = await callError(ns.callTool("add", { a: "2" }, callOptions()));
      assert.equal(invalid.kind, "InvalidToolInput");
    } finally {
      await ns.stop();
    }
  });
});

Deno.test("a JSON Schema 2020-12 input schema renders and checks like a draft-07 one", async () => {
  const ns = new McpNamespace("modern", modernStdio());
  try {
    await ns.start();
    const declarations = ns.catalogue().declarations;
    assert.ok(
      declarations.includes(
        "export interface ShapeInput {\n  point: ShapeInputPoint;\n  tags: [string, number];\n}",
      ),
      declarations,
    );
    assert.ok(
      declarations.includes("export interface ShapeInputPoint {\n  x: number;\n  y: number;\n}"),
      declarations,
    );
    assert.deepStrictEqual(ns.catalogue().warnings, []);
    const value =
      (await ns.callTool("shape", { point: { x: 1, y: 2 }, tags: ["a", 1] }, callOptions()))
        .value;
    assert.deepStrictEqual(value, { point: { x: 1, y: 2 }, tags: ["a", 1] });
    const wrong = await callError(
      ns.callTool("shape", { point: { x: 1 }, tags: [1, "a"] }, callOptions()),
    );
    assert.equal(wrong.kind, "InvalidToolInput");
    assert.match(wrong.message, /y/);
  } finally {
    await ns.stop();
  }
});

Deno.test("an upstream's input_required question goes to the call's askUser, over stdio and HTTP", async () => {
  await overBothTransports(async (config) => {
    const logger = capturingLogger();
    const ns = new McpNamespace("modern", config, { logger });
    try {
      await ns.start();
      const asked: unknown[] = [];
      const yes = await ns.callTool("confirm_delete", { path: "/a" }, askingOptions(true, asked));
      assert.equal(yes.value, "Deleted /a");
      assert.deepStrictEqual(asked, [{ message: "Delete /a?", fields: { confirm: true } }]);
      const no = await ns.callTool("confirm_delete", { path: "/b" }, askingOptions(false, asked));
      assert.equal(no.value, "Kept /b");
      // Outside a run nobody can be asked: the question is declined, and the log says why.
      const nobody = await ns.callTool("confirm_delete", { path: "/c" }, callOptions());
      assert.equal(nobody.value, "Kept /c");
      assert.match(logger.lines.join("\n"), /only a call from a run can wait for an answer/);
      // A required field without a default cannot be answered by a yes: declined unasked.
      const before = asked.length;
      const name = await ns.callTool("ask_name", {}, askingOptions(true, asked));
      assert.equal(name.value, "no name");
      assert.equal(asked.length, before);
      assert.match(logger.lines.join("\n"), /"name" \(string\), which has no default/);
    } finally {
      await ns.stop();
    }
  });
});

Deno.test("a 2026-07-28 upstream's tool list change reaches the catalogue (subscriptions/listen), over stdio and HTTP", async () => {
  await overBothTransports(async (config) => {
    const ns = new McpNamespace("modern", config);
    try {
      await ns.start();
      let changes = 0;
      ns.onChange(() => changes++);
      await ns.callTool("add_tool", { name: "fresh" }, callOptions());
      await pollUntil(
        "the new tool in the catalogue",
        () => ns.catalogue().tools.some((tool) => tool.originalName === "fresh"),
        { timeoutMs: 10_000 },
      );
      assert.ok(changes >= 1);
      assert.equal((await ns.callTool("fresh", {}, callOptions())).value, "fresh here");
      // The stream is open by now (the first change may have been read when it opened): this
      // change arrives on it.
      await ns.callTool("add_tool", { name: "fresher" }, callOptions());
      await pollUntil(
        "the second new tool in the catalogue",
        () => ns.catalogue().tools.some((tool) => tool.originalName === "fresher"),
        { timeoutMs: 10_000 },
      );
    } finally {
      await ns.stop();
    }
  });
});

Deno.test("a hung call to a 2026-07-28 upstream times out and the upstream sees it cancelled, over stdio and HTTP", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gateway-modern-hang-" });
  try {
    let round = 0;
    await overBothTransports(async (config) => {
      const record = join(dir, `record-${round++}.txt`);
      const withRecord = "command" in config
        ? { ...config, env: { ...config.env, MODERN_RECORD: record } }
        : config;
      const ns = new McpNamespace("modern", withRecord);
      try {
        await ns.start();
        const error = await callError(ns.callTool("hang", {}, callOptions({ callTimeoutMs: 300 })));
        assert.equal(error.kind, "ToolTimeout");
        const file = "command" in config ? record : join(dir, "http-record.txt");
        await pollUntil("the upstream to see the call cancelled", async () => {
          const text = await Deno.readTextFile(file).catch(() => "");
          return text.includes("cancelled");
        });
        // The connection goes on serving.
        assert.equal(
          (await ns.callTool("echo", { message: "on" }, callOptions())).value,
          "Echo: on",
        );
      } finally {
        await ns.stop();
      }
    }, { MODERN_RECORD: join(dir, "http-record.txt") });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the era is asked once and kept in the data dir: a restart asks no server again", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "gateway-eras-" });
  try {
    for (
      const [config, era, version] of [
        [modernStdio(), "modern", "2026-07-28"],
        [realServerConfig("everything", { args: ["stdio"] }), "legacy", "2025-11-25"],
      ] as const
    ) {
      for (const fromKeptVerdict of [false, true]) {
        const ns = new McpNamespace("upstream", config, { dataDir });
        try {
          await ns.start();
          assert.deepStrictEqual(ns.status(), { state: "ready" });
          assert.deepStrictEqual(ns.protocol, { era, version, fromKeptVerdict });
        } finally {
          await ns.stop();
        }
      }
      const kept = JSON.parse(await Deno.readTextFile(join(dataDir, "mcp", "eras.json")));
      assert.equal(kept.upstream.era, era);
      assert.equal((await Deno.stat(join(dataDir, "mcp", "eras.json"))).mode! & 0o777, 0o600);
    }
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("a kept verdict that proves wrong is dropped and the server asked again at once", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "gateway-eras-" });
  const logger = capturingLogger();
  try {
    // What the last start found for "upstream" was a 2026 server; the config now runs a 2025
    // one (same command line: the server was swapped underneath).
    const config = realServerConfig("everything", { args: ["stdio"] });
    const { EraVerdicts } = await import("./era_verdicts.ts");
    new EraVerdicts(dataDir).remember("upstream", config, {
      supportedVersions: ["2026-07-28"],
      capabilities: { tools: {} },
    });
    const ns = new McpNamespace("upstream", config, { dataDir, logger });
    try {
      await ns.start();
      assert.deepStrictEqual(ns.status(), { state: "ready" });
      assert.deepStrictEqual(ns.protocol, {
        era: "legacy",
        version: "2025-11-25",
        fromKeptVerdict: false,
      });
      assert.match(logger.lines.join("\n"), /did not start as a modern-era server as last time/);
    } finally {
      await ns.stop();
    }
    const kept = JSON.parse(await Deno.readTextFile(join(dataDir, "mcp", "eras.json")));
    assert.equal(kept.upstream.era, "legacy");
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("a task a 2026-07-28 stdio upstream makes of a call is awaited, and cancelled at the call's deadline", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gateway-raw-modern-" });
  const record = join(dir, "record.jsonl");
  const ns = new McpNamespace(
    "raw",
    fixtureConfig("raw_modern_server.ts", { env: { RAW_RECORD: record } }),
  );
  try {
    await ns.start();
    assert.deepStrictEqual(ns.status(), { state: "ready" });
    // The task outlives the silence timeout: its status polls keep the call alive.
    const progress: string[] = [];
    const done = await ns.callTool("slow", { ms: 600 }, {
      ...callOptions({ callTimeoutMs: 300 }),
      onProgress: (p) => p.message !== undefined && progress.push(p.message),
    });
    assert.equal(done.value, "slept 600");
    assert.ok(progress.includes("task working"), progress.join(", "));
    // A task past the hard maximum is cancelled with tasks/cancel.
    const error = await callError(
      ns.callTool("slow", { ms: 60_000 }, callOptions({ callTimeoutMs: 5000, callMaxMs: 400 })),
    );
    assert.equal(error.kind, "ToolTimeout");
    await pollUntil("the upstream to get tasks/cancel", async () => {
      const lines = (await Deno.readTextFile(record)).trim().split("\n").map((l) => JSON.parse(l));
      return lines.some((m) => m.method === "tasks/cancel" && m.params?.taskId === "task-2");
    }, { timeoutMs: 5000 });
  } finally {
    await ns.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a task a 2026-07-28 HTTP upstream makes of a call is awaited through the SDK's client, and cancelled at the call's deadline", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gateway-raw-modern-http-" });
  const record = join(dir, "record.jsonl");
  const http = await startHttpRawModern({ RAW_RECORD: record });
  const ns = new McpNamespace("raw", {
    url: http.url,
    headers: {},
    transport: "streamable-http",
    disabled: false,
    startTimeoutMs: 15_000,
  });
  try {
    await ns.start();
    assert.deepStrictEqual(ns.status(), { state: "ready" });
    assert.equal(ns.protocol?.era, "modern");
    // The task outlives the silence timeout: its status polls keep the call alive.
    const progress: string[] = [];
    const done = await ns.callTool("slow", { ms: 600 }, {
      ...callOptions({ callTimeoutMs: 300 }),
      onProgress: (p) => p.message !== undefined && progress.push(p.message),
    });
    assert.equal(done.value, "slept 600");
    assert.ok(progress.includes("task working"), progress.join(", "));
    const lines = () =>
      Deno.readTextFile(record).then((text) =>
        text.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>)
      );
    // The server was told the gateway awaits tasks, and asked with the envelope of the era.
    const call = (await lines()).find((m) => m.method === "tools/call") as {
      params: { _meta: Record<string, Record<string, unknown>> };
    };
    assert.ok(
      "io.modelcontextprotocol/tasks" in
        (call.params._meta["io.modelcontextprotocol/clientCapabilities"]!.extensions as object),
    );
    assert.ok((await lines()).some((m) => m.method === "tasks/get"));
    // A task past the hard maximum is cancelled with tasks/cancel.
    const error = await callError(
      ns.callTool("slow", { ms: 60_000 }, callOptions({ callTimeoutMs: 5000, callMaxMs: 400 })),
    );
    assert.equal(error.kind, "ToolTimeout");
    await pollUntil("the upstream to get tasks/cancel", async () => {
      return (await lines()).some((m) =>
        m.method === "tasks/cancel" && (m.params as { taskId?: string })?.taskId === "task-2"
      );
    }, { timeoutMs: 5000 });
    // A call the caller cancels cancels its task too.
    const controller = new AbortController();
    const cancelled = ns.callTool("slow", { ms: 60_000 }, {
      ...callOptions(),
      signal: controller.signal,
    });
    await pollUntil(
      "the third task to start",
      async () =>
        (await lines()).some((m) =>
          m.method === "tasks/get" && (m.params as { taskId?: string })?.taskId === "task-3"
        ),
      { timeoutMs: 5000 },
    );
    controller.abort(new Error("caller went away"));
    assert.equal((await callError(cancelled)).kind, "Cancelled");
    await pollUntil("the upstream to get tasks/cancel of the third task", async () => {
      return (await lines()).some((m) =>
        m.method === "tasks/cancel" && (m.params as { taskId?: string })?.taskId === "task-3"
      );
    }, { timeoutMs: 5000 });
  } finally {
    await ns.stop();
    await http.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a JSON-RPC request from a 2026-07-28 stdio server is dropped and logged; the call goes on", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gateway-raw-modern-" });
  const record = join(dir, "record.jsonl");
  const logger = capturingLogger();
  const ns = new McpNamespace(
    "raw",
    fixtureConfig("raw_modern_server.ts", { env: { RAW_RECORD: record } }),
    { logger },
  );
  try {
    await ns.start();
    assert.equal((await ns.callTool("pushy", {}, callOptions())).value, "done");
    assert.equal((await ns.callTool("pushy", {}, callOptions())).value, "done");
    assert.match(logger.lines.join("\n"), /MCP server "raw": .*request/i);
    // Nothing answered the server's request: on 2026-07-28 stdio the client writes no response.
    const lines = (await Deno.readTextFile(record)).trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(lines.some((m) => m.id === "server-request-1"), false);
    assert.deepStrictEqual(ns.status(), { state: "ready" });
  } finally {
    await ns.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a stdio server that exits at server/discover is started again as a 2025 server, without stalling", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gateway-exit-on-discover-" });
  const record = join(dir, "record.jsonl");
  const dataDir = join(dir, "data");
  const logger = capturingLogger();
  const ns = new McpNamespace(
    "rmcp_like",
    fixtureConfig("fault_server.ts", {
      env: { FAULT_EXIT_ON_DISCOVER: "1", FAULT_RECORD: record },
    }),
    { logger, dataDir },
  );
  try {
    await ns.start();
    assert.deepStrictEqual(ns.status(), { state: "ready" });
    assert.deepStrictEqual(ns.protocol, {
      era: "legacy",
      version: "2025-11-25",
      fromKeptVerdict: false,
    });
    assert.match(logger.lines.join("\n"), /exited at server\/discover: starting it again/);
    const events = (await Deno.readTextFile(record)).trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(events.filter((e) => e.event === "exit-on-discover").length, 1);
    assert.equal((await ns.callTool("echo", { message: "x" }, callOptions())).value, "Echo: x");
    const kept = JSON.parse(await Deno.readTextFile(join(dataDir, "mcp", "eras.json")));
    assert.equal(kept.rmcp_like.era, "legacy");
  } finally {
    await ns.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
