import assert from "node:assert/strict";
import {
  callError,
  callOptions,
  realServerConfig,
} from "../../../test/fixtures/mcp/mcp_test_servers.ts";
import { DeferredMcpNamespace } from "./deferred_mcp_namespace.ts";

Deno.test("a deferred MCP namespace says starting until the gateway's start is over, then serves the real server", async () => {
  const gate = Promise.withResolvers<void>();
  const ns = new DeferredMcpNamespace("everything", realServerConfig("everything"), {
    loadAfter: gate.promise,
  });
  let changes = 0;
  const unsubscribe = ns.onChange(() => changes++);
  try {
    const started = ns.start();
    // Nothing loads or connects before the gate opens.
    assert.deepEqual(ns.status(), { state: "starting" });
    assert.deepEqual(ns.catalogue().tools, []);
    assert.equal(ns.pid, undefined);
    // A call made meanwhile waits for the namespace instead of failing.
    const early = ns.callTool("echo", { message: "early" }, callOptions());
    gate.resolve();
    await started;
    assert.deepEqual(ns.status(), { state: "ready" });
    assert.ok(changes > 0, "listeners hear the code load and the connection");
    assert.ok(ns.catalogue().tools.some((tool) => tool.originalName === "echo"));
    assert.match(JSON.stringify((await early).value), /early/);
    assert.equal(typeof ns.pid, "number");

    // Reconnect (`gateway auth login`): stop, then start the same object again.
    await ns.stop();
    assert.deepEqual(ns.status(), { state: "failed", reason: "stopped" });
    await ns.start();
    assert.deepEqual(ns.status(), { state: "ready" });
    const { value } = await ns.callTool("echo", { message: "again" }, callOptions());
    assert.match(JSON.stringify(value), /again/);
  } finally {
    unsubscribe();
    await ns.stop();
  }
});

Deno.test("a deferred MCP namespace stopped before its code loads never starts the server", async () => {
  const gate = Promise.withResolvers<void>();
  const ns = new DeferredMcpNamespace("everything", realServerConfig("everything"), {
    loadAfter: gate.promise,
  });
  const started = ns.start();
  const call = ns.callTool("echo", { message: "x" }, callOptions());
  await ns.stop();
  await started; // the start ends with the stop, though the gate never opened
  assert.deepEqual(ns.status(), { state: "failed", reason: "stopped" });
  assert.equal(ns.pid, undefined);
  const error = await callError(call);
  assert.equal(error.kind, "NamespaceUnavailable");
  assert.match(error.message, /MCP server "everything" is unavailable: stopped/);
});
