import assert from "node:assert/strict";
import { join } from "node:path";
import { NamespaceRegistry } from "../namespaces/namespace_registry.ts";
import type { Namespace, NamespaceCatalogue } from "../namespaces/namespace.ts";
import type { GatewayConfig } from "../config/gateway_config.ts";
import type { Diagnostic } from "../protocol/run_document.ts";
import { toolDescriptor } from "../../test/support/tool_descriptor.ts";
import { Approvals } from "./approvals.ts";
import { CallPolicy } from "./call_policy.ts";
import { CheckedShapes } from "./checked_shapes.ts";
import { ToolDispatcher } from "./tool_dispatcher.ts";

/** A ready local namespace `kv` whose `get` takes `inputType`. */
function kvNamespace(inputType = "{ key: string }"): Namespace {
  const catalogue: NamespaceCatalogue = {
    tools: [toolDescriptor("get", { inputType, inputOptional: false, outputType: "unknown" })],
    declarations: "",
    warnings: [],
  };
  return {
    name: "kv",
    kind: "local",
    capabilities: new Set(),
    status: () => ({ state: "ready" }),
    catalogue: () => catalogue,
    start: () => Promise.resolve(),
    stop: () => Promise.resolve(),
    callTool: (_tool, args) => Promise.resolve({ value: args, raw: { content: [] } }),
    callValue: (_tool, args) => Promise.resolve(args),
    onChange: () => () => {},
  };
}

/**
 * A dispatcher over `kv` whose argument check answers like the type checker (a number for
 * `key` does not fit `{ key: string }`) and counts its checks.
 */
async function dispatcherWith(shapes: CheckedShapes, inputType?: string) {
  const registry = new NamespaceRegistry();
  await registry.add(kvNamespace(inputType));
  const checks: string[] = [];
  const check = (source: string): Promise<Diagnostic[]> => {
    checks.push(source);
    const bad = /"key":\d/.test(source);
    return Promise.resolve(
      bad
        ? [{
          message: "Type 'number' is not assignable to type 'string'.",
          line: 1,
          column: 20,
          code: 2322,
        }]
        : [],
    );
  };
  const dispatcher = new ToolDispatcher({
    registry,
    policy: new CallPolicy({
      rules: () => [],
      approvals: new Approvals(),
      log: () => {},
      root: "/root",
    }),
    config: () => ({ exec: { callTimeoutMs: 60_000, callMaxMs: 60_000 } }) as GatewayConfig,
    check: () => check,
    checkedShapes: shapes,
  });
  return { dispatcher, checks, registry };
}

const options = { raw: false, signal: new AbortController().signal };

async function withFile(body: (file: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "gateway-checked-shapes-" });
  try {
    await body(join(dir, "cache", "checked-shapes.json"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a restarted gateway calls a local tool with a shape checked before without checking it", async () => {
  await withFile(async (file) => {
    const shapes = new CheckedShapes(file, { warn: assert.fail });
    const first = await dispatcherWith(shapes);
    try {
      assert.deepEqual(await first.dispatcher.callTool("kv", "get", { key: "a" }, options), {
        key: "a",
      });
      assert.equal(first.checks.length, 1, "a new shape is checked");
      await first.dispatcher.callTool("kv", "get", { key: "a" }, options);
      assert.equal(first.checks.length, 1, "once a shape");
    } finally {
      await first.registry.stopAll();
      await shapes.close(); // the server's stop writes what is pending
    }
    const again = new CheckedShapes(file, { warn: assert.fail });
    const second = await dispatcherWith(again);
    try {
      await second.dispatcher.callTool("kv", "get", { key: "a" }, options);
      assert.deepEqual(second.checks, [], "the kept verdict needs no check");
      // A shape never seen is still checked, and one that does not fit still fails.
      await assert.rejects(
        () => second.dispatcher.callTool("kv", "get", { key: 1 }, options),
        (error: unknown) =>
          error instanceof Error && error.name === "ToolCallError" &&
          /Invalid input for tool "kv.get": Type 'number'/.test(error.message),
      );
      assert.equal(second.checks.length, 1);
    } finally {
      await second.registry.stopAll();
      await again.close();
    }
  });
});

Deno.test("checked shapes: an unfitting shape is never kept, and a changed type checks again", async () => {
  await withFile(async (file) => {
    const shapes = new CheckedShapes(file, { warn: assert.fail });
    const first = await dispatcherWith(shapes);
    try {
      await assert.rejects(() => first.dispatcher.callTool("kv", "get", { key: 1 }, options));
      await first.dispatcher.callTool("kv", "get", { key: "a" }, options);
    } finally {
      await first.registry.stopAll();
      await shapes.close();
    }
    const written = JSON.parse(await Deno.readTextFile(file)) as {
      version: number;
      keys: string[];
    };
    assert.equal(written.version, 1);
    assert.equal(written.keys.length, 1, "only the fitting shape was kept");
    assert.ok(written.keys[0]!.endsWith(`:get\u0000{"key":"a"}`), written.keys[0]);
    // The same shape against another type of the tool is a new verdict.
    const retyped = new CheckedShapes(file, { warn: assert.fail });
    const second = await dispatcherWith(retyped, "{ key: string; limit?: number }");
    try {
      await second.dispatcher.callTool("kv", "get", { key: "a" }, options);
      assert.equal(second.checks.length, 1, "another type: checked again");
    } finally {
      await second.registry.stopAll();
      await retyped.close();
    }
  });
});

Deno.test("checked shapes: an unreadable file is an empty memory, said once, and is rewritten", async () => {
  await withFile(async (file) => {
    await Deno.mkdir(join(file, ".."), { recursive: true });
    await Deno.writeTextFile(file, "{ not json");
    const warnings: string[] = [];
    const shapes = new CheckedShapes(file, { warn: (message) => warnings.push(message) });
    const { dispatcher, checks, registry } = await dispatcherWith(shapes);
    try {
      await dispatcher.callTool("kv", "get", { key: "a" }, options);
      assert.equal(checks.length, 1);
    } finally {
      await registry.stopAll();
      await shapes.close();
    }
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /^ignoring .*checked-shapes\.json \(argument checks start over\)/);
    const rewritten = JSON.parse(await Deno.readTextFile(file)) as { keys: string[] };
    assert.equal(rewritten.keys.length, 1);
    assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
  });
});

Deno.test("checked shapes: an argument too large to check leaves no verdict for its shape", async () => {
  await withFile(async (file) => {
    const shapes = new CheckedShapes(file, { warn: assert.fail });
    const { dispatcher, checks, registry } = await dispatcherWith(shapes);
    try {
      // Too large to check: the tool gets it unchecked (it validates its own input).
      await dispatcher.callTool("kv", "get", { key: 1, pad: "x".repeat(70_000) }, options);
      assert.deepEqual(checks, [], "too large: not checked");
      // The same shape, small enough to check, is checked and refused.
      await assert.rejects(
        () => dispatcher.callTool("kv", "get", { key: 2, pad: "y".repeat(100) }, options),
        (error: unknown) =>
          error instanceof Error && error.name === "ToolCallError" &&
          /Invalid input for tool "kv.get": Type 'number'/.test(error.message),
      );
      assert.equal(checks.length, 1);
    } finally {
      await registry.stopAll();
      await shapes.close();
    }
    const kept = await Deno.readTextFile(file).then(
      (text) => (JSON.parse(text) as { keys: string[] }).keys,
      (error: unknown) => {
        if (error instanceof Deno.errors.NotFound) return [];
        throw error;
      },
    );
    assert.deepEqual(kept, [], "nothing unchecked was kept as checked");
  });
});
