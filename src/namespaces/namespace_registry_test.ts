import assert from "node:assert/strict";
import { NamespaceRegistry } from "./namespace_registry.ts";
import {
  type Namespace,
  NO_CAPABILITIES,
  ToolCallError,
  type ToolCallResult,
} from "./namespace.ts";
import type { ToolDescriptor } from "../protocol/catalogue.ts";
import { toolDescriptor } from "../../test/support/tool_descriptor.ts";

/** A ready namespace whose catalogue a test can change (and announce). */
function fakeNamespace(name: string, tools: string[]): Namespace & { setTools(t: string[]): void } {
  let descriptors: ToolDescriptor[] = tools.map((t) => toolDescriptor(t));
  const listeners = new Set<() => void>();
  return {
    name,
    kind: "local",
    capabilities: NO_CAPABILITIES,
    status: () => ({ state: "ready" }),
    catalogue: () => ({ tools: descriptors, declarations: "", warnings: [] }),
    start: () => Promise.resolve(),
    stop: () => Promise.resolve(),
    callTool: (): Promise<ToolCallResult> => Promise.resolve({ value: null, raw: { content: [] } }),
    onChange: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    setTools(next: string[]) {
      descriptors = next.map((t) => toolDescriptor(t));
      for (const listener of listeners) listener();
    },
  };
}

function unknownTool(error: unknown): boolean {
  return error instanceof ToolCallError && error.kind === "UnknownTool";
}

Deno.test("NamespaceRegistry.resolve() remembers a resolution until the catalogue changes", async () => {
  const registry = new NamespaceRegistry();
  const first = fakeNamespace("kv", ["get", "set-item"]);
  await registry.add(first);
  try {
    const byName = registry.resolve("kv", "set-item");
    assert.equal(byName.identifier, "set_item");
    assert.equal(registry.resolve("kv", "set-item"), byName, "the second lookup is remembered");
    assert.equal(registry.resolve("kv", "set_item").tool.originalName, "set-item");
    assert.throws(() => registry.resolve("kv", "nope"), unknownTool);

    // A tool that goes away is unknown at once, and a new one is found.
    first.setTools(["get", "put"]);
    assert.throws(() => registry.resolve("kv", "set-item"), unknownTool);
    assert.equal(registry.resolve("kv", "put").tool.originalName, "put");

    // A namespace replaced under the same name resolves to the new one.
    await registry.remove("kv");
    const second = fakeNamespace("kv", ["get"]);
    await registry.add(second);
    assert.equal(registry.resolve("kv", "get").namespace, second);
  } finally {
    await registry.stopAll();
  }
});
