import assert from "node:assert/strict";
import { NamespaceRegistry } from "../namespaces/namespace_registry.ts";
import { type Namespace, ToolCallError, type ToolCallResult } from "../namespaces/namespace.ts";
import type { GatewayConfig } from "../config/gateway_config.ts";
import { toolDescriptor } from "../../test/support/tool_descriptor.ts";
import { Approvals } from "./approvals.ts";
import { CallPolicy } from "./call_policy.ts";
import { ToolDispatcher } from "./tool_dispatcher.ts";

/** A ready local namespace with `echo`, counting how it is called. */
function echoNamespace() {
  const calls = { value: 0, envelope: 0 };
  const namespace: Namespace = {
    name: "echo",
    kind: "local",
    status: () => ({ state: "ready" }),
    catalogue: () => ({ tools: [toolDescriptor("echo")], declarations: "", warnings: [] }),
    start: () => Promise.resolve(),
    stop: () => Promise.resolve(),
    callTool: (_tool, args): Promise<ToolCallResult> => {
      calls.envelope++;
      return Promise.resolve({ value: args, raw: { content: [], structuredContent: args } });
    },
    callValue: (_tool, args) => {
      calls.value++;
      return Promise.resolve(args);
    },
    onChange: () => () => {},
  };
  return { namespace, calls };
}

async function dispatcherWith(rules: GatewayConfig["policy"]) {
  const registry = new NamespaceRegistry();
  const { namespace, calls } = echoNamespace();
  await registry.add(namespace);
  const config = { exec: { callTimeoutMs: 60_000, callMaxMs: 60_000 } } as GatewayConfig;
  const dispatcher = new ToolDispatcher({
    registry,
    policy: new CallPolicy({
      rules: () => rules,
      approvals: new Approvals(),
      log: () => {},
      root: "/root",
    }),
    config: () => config,
    check: () => null,
  });
  return { dispatcher, calls, registry };
}

const options = { raw: false, signal: new AbortController().signal, argsChecked: true };

Deno.test("ToolDispatcher hands a call no rule holds to its namespace in the same turn, value only", async () => {
  const { dispatcher, calls, registry } = await dispatcherWith([]);
  try {
    const answer = dispatcher.callTool("echo", "echo", { v: 1 }, options);
    assert.equal(calls.value, 1, "the namespace was called before any await");
    assert.deepEqual(await answer, { v: 1 });
    // `.raw()` gets the envelope, by the namespace's callTool.
    assert.deepEqual(
      await dispatcher.callTool("echo", "echo", { v: 2 }, { ...options, raw: true }),
      {
        content: [],
        structuredContent: { v: 2 },
      },
    );
    assert.equal(calls.envelope, 1);
  } finally {
    await registry.stopAll();
  }
});

Deno.test("ToolDispatcher applies a policy rule before the namespace sees the call", async () => {
  const { dispatcher, calls, registry } = await dispatcherWith([{
    match: "echo.*",
    action: "deny",
  }]);
  try {
    await assert.rejects(
      dispatcher.callTool("echo", "echo", { v: 1 }, options),
      (error: unknown) => error instanceof ToolCallError && error.kind === "PolicyDenied",
    );
    await assert.rejects(
      dispatcher.callTool("echo", "nope", {}, options),
      (error: unknown) => error instanceof ToolCallError && error.kind === "UnknownTool",
    );
    assert.equal(calls.value + calls.envelope, 0);
  } finally {
    await registry.stopAll();
  }
});
