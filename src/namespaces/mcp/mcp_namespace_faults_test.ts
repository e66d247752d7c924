import assert from "node:assert/strict";
import {
  callError,
  callOptions,
  fixtureConfig,
  isProcessGone,
  readRecord,
  typeCheck,
} from "../../../test/fixtures/mcp/mcp_test_servers.ts";
import { pollUntil } from "../../../test/support/poll_until.ts";
import type { LogMethods } from "../../logger.ts";
import { McpNamespace } from "./mcp_namespace.ts";

function reasonOf(ns: McpNamespace): string {
  const status = ns.status();
  return status.state === "failed" ? status.reason : `(${status.state})`;
}

function capturingLogger(): LogMethods & { lines: string[] } {
  const lines: string[] = [];
  const push = (message: string) => lines.push(message);
  return { lines, debug: push, info: push, warn: push, error: push };
}

/** The id of the last `tools/call` of `tool` the fixture recorded. */
async function requestIdOf(record: string, tool: string): Promise<unknown> {
  const requests = (await readRecord(record)).filter((e) =>
    e.event === "request" && e.tool === tool
  );
  return requests.at(-1)?.id;
}

/** Waits (200 ms at most) until the fixture recorded `notifications/cancelled` for `tool`'s call. */
async function cancelledUpstream(
  record: string,
  options: { tool: string; after: number },
): Promise<void> {
  const id = await requestIdOf(record, options.tool);
  await pollUntil(
    `notifications/cancelled for ${options.tool}`,
    async () =>
      (await readRecord(record)).slice(options.after).some((e) =>
        e.event === "cancelled" && e.requestId === id
      ),
  );
}

Deno.test("`McpNamespace` handles a misbehaving fixture server", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "gateway-mcp-faults-" });
  const record = `${dir}/record.jsonl`;
  const ns = new McpNamespace(
    "fixture",
    fixtureConfig("fault_server.ts", { env: { FAULT_RECORD: record } }),
  );
  const states: string[] = [];
  ns.onChange(() => states.push(ns.status().state));
  try {
    await ns.start();

    await t.step("`start()` goes from starting to ready", () => {
      assert.deepStrictEqual(ns.status(), { state: "ready" });
      assert.deepStrictEqual(states, ["starting", "ready"]);
    });

    await t.step("`catalogue()` keeps reserved and colliding names and warns", async () => {
      const names = ns.catalogue().tools.map((tool) => tool.originalName);
      for (const name of ["delete", "fancy-name", "fancy_name"]) assert.ok(names.includes(name));
      assert.deepStrictEqual(ns.catalogue().warnings, [
        'fixture tool "fancy-name" and "fancy_name" both become "fancy_name": "fancy-name" is "fancy_name_2" (or use ["fancy-name"])',
      ]);
      assert.equal((await ns.callTool("delete", undefined, callOptions())).value, "delete");
      assert.equal((await ns.callTool("fancy-name", {}, callOptions())).value, "fancy-name");
      assert.equal((await ns.callTool("fancy_name", {}, callOptions())).value, "fancy_name");
    });

    await t.step("a deeply nested schema becomes checked types and validated input", async () => {
      const nested = ns.catalogue().tools.find((tool) => tool.originalName === "nested");
      assert.equal(nested?.inputType, "NestedInput");
      assert.equal(nested?.outputType, "NestedOutput");
      const source = `declare namespace fixture {\n${ns.catalogue().declarations}\n}\n` +
        `const ok: fixture.NestedInput = { tree: { label: "a", children: [{ label: "b" }] },` +
        ` point: [1, 2], shape: { kind: "circle", radius: 1 }, limits: { inner: { deeper: { deepest: 1 } } } };\n` +
        `// @ts-expect-error deepest is required\n` +
        `const bad: fixture.NestedInput = { tree: { label: "a" }, point: [1, 2], limits: { inner: { deeper: {} } } };\n` +
        `const out: fixture.NestedOutput = { ok: true, labels: 2 };\nexport { bad, ok, out };\n`;
      const checked = await typeCheck(source);
      assert.ok(checked.ok, `${checked.output}\n${source}`);

      const invalid = await callError(ns.callTool("nested", {
        tree: { label: "a", children: [{ label: "" }] },
        point: [1, "2"],
        mode: "warp",
      }, callOptions()));
      assert.equal(invalid.kind, "InvalidToolInput");
      assert.equal(
        invalid.message,
        'Invalid input for tool "fixture.nested": "/tree/children/0/label" must NOT have fewer than 1 characters (minLength); ' +
          '"/point/1" must be number (type); "/mode" must be one of "fast", "slow" (enum)',
      );
      const result = await ns.callTool("nested", {
        tree: { label: "a", children: [{ label: "b", children: [{ label: "c" }] }] },
        point: [1, 2],
      }, callOptions());
      assert.deepStrictEqual(result.value, { ok: true, labels: 3 });
    });

    await t.step("isError answers become ToolError with the text or the tool's name", async () => {
      const fail = await callError(ns.callTool("fail", {}, callOptions()));
      assert.equal(fail.kind, "ToolError");
      assert.equal(fail.message, "it broke: on purpose");
      assert.deepStrictEqual(fail.raw, {
        isError: true,
        content: [{ type: "text", text: "it broke: on purpose" }],
      });
      const silent = await callError(ns.callTool("fail_silent", {}, callOptions()));
      assert.equal(silent.message, "fixture.fail_silent returned isError");
    });

    await t.step(
      "a reply over the 16 MiB message limit fails its call at once, naming the size",
      async () => {
        const error = await callError(
          ns.callTool(
            "huge_reply",
            { bytes: 17 * 1024 * 1024 },
            callOptions({ callTimeoutMs: 60_000 }),
          ),
        );
        assert.notEqual(error.kind, "ToolTimeout");
        assert.match(error.message, /is \d+ bytes, over the gateway's limit of 16777216 bytes/);
        assert.equal(
          (await ns.callTool("echo", { message: "still" }, callOptions())).value,
          "Echo: still",
        );
      },
    );

    await t.step("JSON text is parsed and mixed content stays blocks", async () => {
      assert.deepStrictEqual((await ns.callTool("json_text", {}, callOptions())).value, {
        a: [1, 2],
      });
      assert.deepStrictEqual((await ns.callTool("mixed", {}, callOptions())).value, [
        { type: "text", text: "a picture:" },
        { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
      ]);
    });

    await t.step("aborting the signal cancels the call upstream", async () => {
      const controller = new AbortController();
      const call = ns.callTool("hang", {}, callOptions({ signal: controller.signal }));
      await pollUntil(
        "the hang request",
        async () => (await requestIdOf(record, "hang")) !== undefined,
      );
      controller.abort(new Error("run cancelled"));
      const error = await callError(call);
      assert.equal(error.kind, "Cancelled");
      assert.equal(error.message, 'Call to "fixture.hang" was cancelled');
      const id = await requestIdOf(record, "hang");
      await pollUntil(
        "notifications/cancelled",
        async () =>
          (await readRecord(record)).some((e) => e.event === "cancelled" && e.requestId === id),
      );
    });

    await t.step("a silent call times out at callTimeoutMs and is cancelled upstream", async () => {
      const before = (await readRecord(record)).length;
      const error = await callError(ns.callTool("hang", {}, callOptions({ callTimeoutMs: 300 })));
      assert.equal(error.kind, "ToolTimeout");
      assert.equal(
        error.message,
        'Tool "fixture.hang" timed out: no answer or progress for 300 ms',
      );
      await cancelledUpstream(record, { tool: "hang", after: before });
    });

    await t.step("progress cannot keep a call alive past callMaxMs", async () => {
      const before = (await readRecord(record)).length;
      const progress: number[] = [];
      const error = await callError(ns.callTool("progress_forever", { intervalMs: 50 }, {
        ...callOptions({ callTimeoutMs: 300, callMaxMs: 800 }),
        onProgress: (p) => progress.push(p.progress),
      }));
      assert.equal(error.kind, "ToolTimeout");
      assert.match(error.message, /still running after the 800 ms maximum$/);
      // Forwarded through the token bucket (its rate is unit-tested on a clock), increasing.
      assert.ok(progress.length >= 1, `${progress.length} updates`);
      assert.deepStrictEqual(progress, [...progress].sort((a, b) => a - b));
      await cancelledUpstream(record, { tool: "progress_forever", after: before });
    });

    await t.step("tools/list_changed refreshes the catalogue and tells listeners", async () => {
      let changes = 0;
      const unsubscribe = ns.onChange(() => changes++);
      await ns.callTool("add_tool", { name: "added_later" }, callOptions());
      await pollUntil(
        "the refreshed catalogue",
        () => ns.catalogue().tools.some((tool) => tool.originalName === "added_later"),
      );
      unsubscribe();
      assert.ok(changes >= 1);
      assert.equal((await ns.callTool("added_later", {}, callOptions())).value, "added_later");
    });

    await t.step("an unknown tool fails with UnknownTool and suggestions", async () => {
      const error = await callError(ns.callTool("fancyname", {}, callOptions()));
      assert.equal(error.kind, "UnknownTool");
      assert.match(
        error.message,
        /^Unknown tool "fixture\.fancyname": did you mean "fixture\.fancy-name", "fixture\.fancy_name"\?; "fixture" has: /,
      );
    });
  } finally {
    await ns.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("`McpNamespace` survives upstream crashes, reconnects with back-off and opens a breaker", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gateway-mcp-crash-" });
  const record = `${dir}/record.jsonl`;
  const restart = {
    initialDelayMs: 100,
    maxDelayMs: 100,
    breakerCrashes: 3,
    breakerWindowMs: 60_000,
    breakerHoldMs: 60_000,
  };
  const ns = new McpNamespace(
    "crashy",
    fixtureConfig("fault_server.ts", { env: { FAULT_RECORD: record } }),
    { restart },
  );
  // The control: same delays, no breaker. Once it is back after a crash, crashy had its chance.
  const steady = new McpNamespace(
    "steady",
    fixtureConfig("fault_server.ts", { env: { FAULT_RECORD: `${dir}/steady.jsonl` } }),
    { restart: { ...restart, breakerCrashes: 1_000 } },
  );
  try {
    await Promise.all([ns.start(), steady.start()]);
    const firstPid = ns.pid;
    const inFlight = Array.from(
      { length: 4 },
      () => callError(ns.callTool("hang", {}, callOptions())),
    );
    await pollUntil(
      "four hanging calls",
      async () => (await readRecord(record)).filter((e) => e.tool === "hang").length === 4,
    );
    const errors = await Promise.all([
      callError(ns.callTool("crash", {}, callOptions())),
      ...inFlight,
    ]);
    for (const error of errors) {
      assert.equal(error.kind, "NamespaceUnavailable");
      assert.match(error.message, /^MCP server "crashy" went away during "crashy\.(crash|hang)": /);
    }
    assert.equal(ns.status().state, "failed");
    assert.match(
      reasonOf(ns),
      /^MCP server "crashy" was killed by SIGKILL; stderr: about to crash: on purpose; next attempt in 0\.1 s$/,
    );

    const meanwhile = await callError(ns.callTool("echo", { message: "x" }, callOptions()));
    assert.equal(meanwhile.kind, "NamespaceUnavailable");

    await pollUntil("the reconnect", () => ns.status().state === "ready");
    assert.notEqual(ns.pid, firstPid);
    assert.equal(
      (await ns.callTool("echo", { message: "back" }, callOptions())).value,
      "Echo: back",
    );

    // Second and third crash within the window: the breaker holds it down.
    await callError(ns.callTool("crash", {}, callOptions()));
    await pollUntil("the second reconnect", () => ns.status().state === "ready");
    const launched = async () =>
      (await readRecord(record)).filter((e) => e.event === "launched").length;
    const launches = await launched();
    await Promise.all([
      callError(ns.callTool("crash", {}, callOptions())),
      callError(steady.callTool("crash", {}, callOptions())),
    ]);
    assert.match(reasonOf(ns), /\(3 crashes within 60 s: held down\).*next attempt in 60 s$/);
    await pollUntil("the control namespace to reconnect", () => steady.status().state === "ready");
    assert.equal(ns.status().state, "failed");
    assert.equal(await launched(), launches, "crashy was relaunched while held down");
    const held = await callError(ns.callTool("echo", { message: "x" }, callOptions()));
    assert.equal(held.kind, "NamespaceUnavailable");
  } finally {
    await Promise.all([ns.stop(), steady.stop()]);
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("`McpNamespace.start()` gives up on a slow upstream at startTimeoutMs without blocking others", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gateway-mcp-slow-" });
  const record = `${dir}/record.jsonl`;
  const slow = new McpNamespace(
    "slow",
    fixtureConfig("fault_server.ts", {
      env: { FAULT_RECORD: record, FAULT_START_DELAY_MS: "20000" },
      startTimeoutMs: 1000,
    }),
    { killGraceMs: 200, restart: { initialDelayMs: 60_000, maxDelayMs: 60_000 } },
  );
  const healthy = new McpNamespace("healthy", fixtureConfig("fault_server.ts"));
  try {
    // The healthy one is ready while the slow one is still starting: nothing waits for it.
    let slowDone = false;
    const healthyReady = healthy.start().then(() => slowDone);
    await slow.start();
    slowDone = true;
    assert.equal(
      reasonOf(slow),
      'MCP server "slow" failed to start: did not finish initialize within 1000 ms; next attempt in 60 s',
    );
    assert.equal(await healthyReady, false, "the healthy one was ready first");
    assert.deepStrictEqual(healthy.status(), { state: "ready" });
    const launched = (await readRecord(record)).find((e) => e.event === "launched");
    assert.ok(typeof launched?.pid === "number");
    await pollUntil("the slow child to be gone", () => isProcessGone(launched.pid as number));
    const error = await callError(slow.callTool("echo", { message: "x" }, callOptions()));
    assert.equal(error.kind, "NamespaceUnavailable");
  } finally {
    await Promise.all([slow.stop(), healthy.stop()]);
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("`McpNamespace` ignores stdout garbage and drains a stderr flood", async () => {
  const logger = capturingLogger();
  const ns = new McpNamespace(
    "garbage",
    fixtureConfig("garbage_server.ts", {
      env: {
        GARBAGE_STDERR_BYTES: String(20 * 1024 * 1024),
        GARBAGE_HUGE_LINE_BYTES: String(17 * 1024 * 1024),
      },
    }),
    { logger },
  );
  try {
    await ns.start();
    assert.deepStrictEqual(ns.status(), { state: "ready" });
    for (let i = 0; i < 3; i++) {
      const result = await ns.callTool("echo", { message: `m${i}` }, callOptions());
      assert.equal(result.value, `Echo: m${i}`);
    }
    assert.ok(ns.stderrTail().length <= 65_536);
    assert.ok(ns.stderrTail().endsWith("last stderr line of the flood\n"));
    const warnings = logger.lines.join("\n");
    assert.match(
      warnings,
      /Ignored a line on stdout of ".*" that is not JSON-RPC: "this is not json"/,
    );
    assert.match(warnings, /Dropped a message from ".*": longer than 16777216 bytes/);
  } finally {
    await ns.stop();
  }
});

Deno.test("`McpNamespace.stop()` leaves no descendant of a stdio server alive", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gateway-mcp-orphans-" });
  const record = `${dir}/record.jsonl`;
  const ns = new McpNamespace(
    "parent",
    fixtureConfig("fault_server.ts", { env: { FAULT_RECORD: record, FAULT_SPAWN_CHILD: "1" } }),
    { killGraceMs: 300 },
  );
  try {
    await ns.start();
    const events = await readRecord(record);
    const child = events.find((e) => e.event === "child")?.pid as number;
    const leader = ns.pid;
    assert.ok(leader !== undefined && typeof child === "number");
    assert.equal(isProcessGone(child), false);
    await ns.stop();
    assert.ok(isProcessGone(leader));
    await pollUntil("the grandchild to be gone", () => isProcessGone(child));
  } finally {
    await ns.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("`McpNamespace` reports a command that cannot start, and a disabled server", async () => {
  const missing = new McpNamespace("missing", {
    command: "no-such-mcp-server-xyz",
    args: [],
    env: {},
    disabled: false,
    startTimeoutMs: 5000,
  });
  const disabled = new McpNamespace("off", {
    command: "unused",
    args: [],
    env: {},
    disabled: true,
    startTimeoutMs: 5000,
  });
  try {
    await Promise.all([missing.start(), disabled.start()]);
    assert.equal(
      reasonOf(missing),
      'MCP server "missing" failed to start: Cannot start "no-such-mcp-server-xyz": command not found; next attempt in 0.5 s',
    );
    assert.deepStrictEqual(disabled.status(), { state: "disabled" });
    const error = await callError(disabled.callTool("x", {}, callOptions()));
    assert.equal(error.message, 'Namespace "off" is unavailable: disabled in the configuration');
  } finally {
    await Promise.all([missing.stop(), disabled.stop()]);
  }
});

Deno.test("`McpNamespace` runs a stdio server in its cwd with env merged over a minimal environment", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gateway-mcp-env-" });
  const record = `${dir}/record.jsonl`;
  Deno.env.set("GATEWAY_TEST_PARENT_ONLY", "must not leak");
  const config = fixtureConfig("fault_server.ts", { env: { FAULT_RECORD: record, EXTRA: "1" } });
  const ns = new McpNamespace("envy", { ...config, cwd: dir });
  try {
    await ns.start();
    assert.deepStrictEqual(ns.status(), { state: "ready" });
    const launched = (await readRecord(record)).find((e) => e.event === "launched");
    assert.equal(launched?.cwd, await Deno.realPath(dir));
    const env = launched?.env as string[];
    for (const name of ["PATH", "HOME", "FAULT_RECORD", "EXTRA"]) {
      assert.ok(env.includes(name), name);
    }
    assert.ok(!env.includes("GATEWAY_TEST_PARENT_ONLY"));
  } finally {
    Deno.env.delete("GATEWAY_TEST_PARENT_ONLY");
    await ns.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("`McpNamespace` sends configured headers and reports both reasons when HTTP and SSE fail", async () => {
  const seen: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    seen.push(`${request.method} ${request.headers.get("authorization")}`);
    return new Response("no MCP here", { status: 404 });
  });
  const ns = new McpNamespace("remote", {
    url: `http://127.0.0.1:${server.addr.port}/mcp`,
    headers: { Authorization: "Bearer sk-test-123" },
    transport: "auto",
    disabled: false,
    startTimeoutMs: 5000,
  });
  try {
    await ns.start();
    assert.match(
      reasonOf(ns),
      /^MCP server "remote" failed to start: Cannot connect to "http:\/\/127\.0\.0\.1:\d+\/mcp": streamable HTTP failed \(.+\), SSE failed \(.+\); next attempt in 0\.5 s$/,
    );
    assert.ok(seen.includes("POST Bearer sk-test-123"), seen.join(", "));
    assert.ok(seen.includes("GET Bearer sk-test-123"), seen.join(", "));
  } finally {
    await ns.stop();
    await server.shutdown();
  }
});

Deno.test("`McpNamespace` checks a tool's structured content against its output schema", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "gateway-mcp-output-" });
  const input = { tree: { label: "a", children: [{ label: "b" }] }, point: [1, 2] };
  try {
    for (
      const [output, message] of [
        [
          "wrong",
          'Tool "fixture.nested" failed: its structured content does not match its output schema: ' +
          '"/labels" must be integer (type)',
        ],
        [
          "missing",
          'Tool "fixture.nested" failed: it has an output schema but returned no structured content',
        ],
      ] as const
    ) {
      await t.step(`structured content ${output}: ToolError naming what does not fit`, async () => {
        const record = `${dir}/${output}.jsonl`;
        const ns = new McpNamespace(
          "fixture",
          fixtureConfig("fault_server.ts", {
            env: { FAULT_RECORD: record, FAULT_NESTED_OUTPUT: output },
          }),
        );
        try {
          await ns.start();
          const error = await callError(ns.callTool("nested", input, callOptions()));
          assert.equal(error.kind, "ToolError");
          assert.equal(error.message, message);
          // Checked on the direct path (the gateway's own ids), not by the SDK's client.
          assert.match(String(await requestIdOf(record, "nested")), /^gw-\d+$/);
        } finally {
          await ns.stop();
        }
      });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
