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

Deno.test("`withTypedToolName` names the tool as typed where the gateway refers to it, once noted", () => {
  const names = { namespace: "everything", tool: "get-sum", typed: "everything.get_sum" };
  assert.equal(
    withTypedToolName(
      'Call to "everything.get-sum" was cancelled; the tool "everything.get-sum" was slow',
      names,
    ),
    'Call to "everything.get_sum" (upstream name "get-sum") was cancelled; the tool ' +
      '"everything.get_sum" was slow',
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

Deno.test("`withTypedToolName` leaves the path alone where it is not the gateway naming the tool", () => {
  const names = { namespace: "everything", tool: "get-env", typed: "everything.get_env" };
  const policy = 'Policy denies everything.get-env (rule "everything.get-env"): change the policy';
  assert.equal(withTypedToolName(policy, names), policy);
  assert.equal(
    withTypedToolName('Tool "everything.get-env" failed: it said "everything.get-env"', names),
    'Tool "everything.get_env" (upstream name "get-env") failed: it said "everything.get-env"',
  );
});
