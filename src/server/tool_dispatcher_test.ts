import assert from "node:assert/strict";
import { NamespaceRegistry } from "../namespaces/namespace_registry.ts";
import {
  type Namespace,
  NO_CAPABILITIES,
  ToolCallError,
  type ToolCallResult,
} from "../namespaces/namespace.ts";
import type { GatewayConfig } from "../config/gateway_config.ts";
import type { ToolDescriptor } from "../protocol/catalogue.ts";
import type { Diagnostic } from "../protocol/run_document.ts";
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
    capabilities: NO_CAPABILITIES,
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

/** A dispatcher over the echo namespace (its catalogue `tools` when given) and `check`. */
async function dispatcherWith(
  rules: GatewayConfig["policy"],
  options: {
    tools?: ToolDescriptor[];
    check?: (source: string) => Promise<Diagnostic[]>;
  } = {},
) {
  const registry = new NamespaceRegistry();
  const { namespace, calls } = echoNamespace();
  const { tools } = options;
  await registry.add(
    tools === undefined
      ? namespace
      : { ...namespace, catalogue: () => ({ tools, declarations: "", warnings: [] }) },
  );
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
    check: () => options.check ?? null,
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

Deno.test("ToolDispatcher judges the request a namespace prepared and sends exactly it", async () => {
  const registry = new NamespaceRegistry();
  const sent: string[] = [];
  const tools = ["addBook", "deleteAll"].map((name) => toolDescriptor(name));
  // Like a GraphQL namespace whose document would run a second root field.
  const namespace: Namespace = {
    name: "library",
    kind: "graphql",
    capabilities: NO_CAPABILITIES,
    status: () => ({ state: "ready" }),
    catalogue: () => ({ tools, declarations: "", warnings: [] }),
    start: () => Promise.resolve(),
    stop: () => Promise.resolve(),
    prepare: (tool, args) => ({
      request: {
        tools: (args as { also?: string[] }).also
          ? [tool, ...(args as { also: string[] }).also]
          : [tool],
        args: {},
        summary: tool,
      },
      send: () => {
        sent.push(tool);
        return Promise.resolve({ value: "sent", raw: { content: [] } });
      },
    }),
    callTool: () => Promise.reject(new Error("a prepared call is sent by its own send")),
    onChange: () => () => {},
  };
  await registry.add(namespace);
  const config = { exec: { callTimeoutMs: 60_000, callMaxMs: 60_000 } } as GatewayConfig;
  const dispatcher = new ToolDispatcher({
    registry,
    policy: new CallPolicy({
      rules: () => [{ match: "library.deleteAll", action: "deny" }],
      approvals: new Approvals(),
      log: () => {},
      root: "/root",
    }),
    config: () => config,
    check: () => null,
  });
  try {
    assert.equal(await dispatcher.callTool("library", "addBook", {}, options), "sent");
    await assert.rejects(
      dispatcher.callTool("library", "addBook", { also: ["deleteAll"] }, options),
      (error: unknown) =>
        error instanceof ToolCallError && error.kind === "PolicyDenied" &&
        /library\.deleteAll/.test(error.message),
    );
    await assert.rejects(
      dispatcher.callTool("library", "addBook", { also: ["adminSecrets"] }, options),
      (error: unknown) =>
        error instanceof ToolCallError && error.kind === "PolicyDenied" &&
        /"adminSecrets", which is not a tool of namespace "library"/.test(error.message),
    );
    assert.deepEqual(sent, ["addBook"], "nothing denied was sent");
  } finally {
    await registry.stopAll();
  }
});

Deno.test("ToolDispatcher alone holds the registry's calls", async () => {
  const { registry } = await dispatcherWith([]);
  try {
    assert.throws(() => registry.claimCalls(), /already claimed by the tool dispatcher/);
    assert.throws(
      () =>
        new ToolDispatcher({
          registry,
          policy: new CallPolicy({
            rules: () => [],
            approvals: new Approvals(),
            log: () => {},
            root: "/",
          }),
          config: () => ({}) as GatewayConfig,
          check: () => null,
        }),
      /already claimed/,
    );
  } finally {
    await registry.stopAll();
  }
});

Deno.test("ToolDispatcher checks an unchecked local call once per shape, and once for every string where no string literal type decides", async () => {
  const checked: string[] = [];
  const { dispatcher, registry } = await dispatcherWith([], {
    tools: [
      toolDescriptor("get", { inputType: "{ key: string }", stringValuesDecide: false }),
      toolDescriptor("pick", {
        inputType: '{ mode: "fast" | "slow" }',
        stringValuesDecide: true,
      }),
      toolDescriptor("old", { inputType: "{ key: string }" }),
    ],
    check: (source) => {
      checked.push(source);
      return Promise.resolve([]);
    },
  });
  const unchecked = { ...options, argsChecked: false };
  try {
    for (const key of ["a", "b", "c", "a"]) {
      assert.deepEqual(await dispatcher.callTool("echo", "get", { key }, unchecked), { key });
    }
    assert.deepEqual(checked, ['tools.echo.get({"key":"a"});\n'], "one check for every key");
    for (const mode of ["fast", "slow", "fast"]) {
      await dispatcher.callTool("echo", "pick", { mode }, unchecked);
    }
    // A descriptor that does not say (one read before the field existed) keeps strings apart.
    for (const key of ["a", "b"]) await dispatcher.callTool("echo", "old", { key }, unchecked);
    assert.deepEqual(checked.slice(1), [
      'tools.echo.pick({"mode":"fast"});\n',
      'tools.echo.pick({"mode":"slow"});\n',
      'tools.echo.old({"key":"a"});\n',
      'tools.echo.old({"key":"b"});\n',
    ]);
  } finally {
    await registry.stopAll();
  }
});
