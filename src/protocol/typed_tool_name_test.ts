import assert from "node:assert/strict";
import { typedToolName, withTypedToolName } from "./typed_tool_name.ts";

const MAP = {
  everything: { name: "everything", tools: { get_sum: "get-sum", echo: "echo" } },
  my_api: { name: "my-api", tools: { list: "list" } },
};

Deno.test("`typedToolName` finds the script's path of a tool by the upstream's names", () => {
  assert.equal(typedToolName(MAP, "everything", "get-sum"), "everything.get_sum");
  assert.equal(typedToolName(MAP, "everything", "echo"), "everything.echo");
  assert.equal(typedToolName(MAP, "my-api", "list"), "my_api.list");
  assert.equal(typedToolName(MAP, "my_api", "list"), undefined, "by the namespace's own name");
  assert.equal(typedToolName(MAP, "nowhere", "echo"), undefined);
});

Deno.test("`withTypedToolName` notes the upstream tool name only where it differs", () => {
  const names = { namespace: "everything", tool: "get-sum", typed: "everything.get_sum" };
  assert.equal(
    withTypedToolName(
      'Call to "everything.get-sum" was cancelled; retry "everything.get-sum"',
      names,
    ),
    'Call to "everything.get_sum" (upstream name "get-sum") was cancelled; retry "everything.get_sum"',
  );
  // Only the namespace differs: the typed path alone, no note.
  assert.equal(
    withTypedToolName('Invalid input for tool "my-api.list": bad', {
      namespace: "my-api",
      tool: "list",
      typed: "my_api.list",
    }),
    'Invalid input for tool "my_api.list": bad',
  );
  // Same names, or a message that does not quote the path: unchanged.
  const same = { namespace: "kv", tool: "get", typed: "kv.get" };
  assert.equal(
    withTypedToolName('Invalid input for tool "kv.get": x', same),
    'Invalid input for tool "kv.get": x',
  );
  assert.equal(withTypedToolName("everything.get-sum failed", names), "everything.get-sum failed");
});
