import assert from "node:assert/strict";
import type { GatewayCall } from "./gateway_call.ts";
import { UnknownResourceError } from "./mcp_resources.ts";
import { UnknownPromptError } from "./mcp_prompts.ts";
import { namespaceSurface } from "./namespace_surface.ts";

const tool = (namespace: string, name: string) => ({
  namespace,
  identifier: namespace,
  name,
  description: `${name} of ${namespace}`,
  inputSchema: { type: "object" },
});

/** A gateway with two upstreams, recording what it is asked. */
function gateway(asked: unknown[] = []): GatewayCall {
  return (method, params) => {
    asked.push([method, params]);
    switch (method) {
      case "upstream.tools":
        return Promise.resolve({ tools: [tool("a", "echo"), tool("b", "echo"), tool("a", "add")] });
      case "upstream.resources":
        return Promise.resolve({
          resources: [
            { namespace: "a", uri: "mem://one", name: "one" },
            { namespace: "b", uri: "mem://two", name: "two" },
          ],
          templates: [{ namespace: "a", uriTemplate: "mem://item/{id}", name: "item" }],
          warnings: [],
        });
      case "upstream.read":
        return Promise.resolve({ contents: [{ uri: params.uri, text: "read" }] });
      case "upstream.request":
        return Promise.resolve({
          value: params.method === "prompts/list" ? [{ name: "greet", description: "" }] : {},
        });
      default:
        return Promise.reject(new Error(`unexpected ${method}`));
    }
  };
}

Deno.test("a namespace served as itself lists only its own tools, resources and templates, under their own names", async () => {
  const surface = namespaceSurface(gateway(), "a");
  assert.deepEqual((await surface.listTools()).map((t) => t.name), ["echo", "add"]);
  assert.deepEqual((await surface.listResources()).map((r) => r.uri), ["mem://one"]);
  assert.deepEqual((await surface.listTemplates()).map((t) => t.uriTemplate), ["mem://item/{id}"]);
  assert.equal(surface.clientUri("a", "mem://one"), "mem://one");
  assert.equal(surface.clientUri("b", "mem://two"), null);
  assert.equal(surface.relaysLogsOf("a"), true);
  assert.equal(surface.relaysLogsOf("b"), false);
});

Deno.test("a namespace served as itself reads what it lists or its templates match, and names what it lacks", async () => {
  const asked: unknown[] = [];
  const surface = namespaceSurface(gateway(asked), "a");
  assert.deepEqual(await surface.readResource("mem://item/7"), [{
    uri: "mem://item/7",
    text: "read",
  }]);
  assert.deepEqual(asked.at(-1), ["upstream.read", { namespace: "a", uri: "mem://item/7" }]);
  await assert.rejects(
    () => surface.readResource("mem://two"),
    (e) =>
      e instanceof UnknownResourceError && e.uri === "mem://two" && /namespace a/.test(e.message),
  );
  await assert.rejects(
    () => surface.getPrompt("nope", {}),
    (e) => e instanceof UnknownPromptError && /prompts: greet/.test(e.message),
  );
});
