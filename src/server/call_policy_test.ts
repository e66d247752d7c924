import assert from "node:assert/strict";
import type { PolicyRule } from "../config/gateway_config.ts";
import { DEFAULT_ACTION_ANNOTATION, ToolCallError } from "../namespaces/namespace.ts";
import { Approvals } from "./approvals.ts";
import { CallPolicy, type PolicyRequest, type PolicyTarget } from "./call_policy.ts";

function gate(rules: PolicyRule[], approvals = new Approvals()): CallPolicy {
  return new CallPolicy({ rules: () => rules, approvals, log: () => {}, root: "/work/root" });
}

function policy(match: string): CallPolicy {
  return gate([{ match, action: "deny" }]);
}

const getEnv: PolicyTarget = {
  tool: "get-env",
  aliases: ["everything.get_env"],
  annotations: undefined,
};

function request(
  targets: PolicyTarget[] = [getEnv],
  args: Record<string, unknown> = {},
  namespace = "everything",
): PolicyRequest {
  return { namespace, targets, args };
}

const context = {
  runId: undefined,
  signal: new AbortController().signal,
  onApproval: undefined,
};

const isDenied = (pattern: RegExp) => (error: unknown) =>
  error instanceof ToolCallError && error.kind === "PolicyDenied" && pattern.test(error.message);

Deno.test("CallPolicy.check() matches a rule written with the tool's identifier or original name", async () => {
  for (const match of ["everything.get_env", "everything.get-env", "everything.get_*"]) {
    await assert.rejects(
      async () => await policy(match).check(request(), context),
      isDenied(/Policy denies everything\.get-env/),
      match,
    );
  }
  await policy("everything.echo").check(request(), context);
});

Deno.test("CallPolicy.check() decides in the same turn unless a rule holds or denies the call", async () => {
  const none = gate([]);
  assert.equal(none.check(request(), context), undefined);
  // Rules that let the call through decide it at once too.
  assert.equal(policy("everything.echo").check(request(), context), undefined);
  const denied = policy("everything.*").check(request(), context);
  assert.ok(denied instanceof Promise);
  await assert.rejects(denied, isDenied(/rule "everything\.\*"/));
});

Deno.test("CallPolicy.check() judges every tool a request runs; the strictest verdict wins", async () => {
  const library = (tool: string, write: boolean): PolicyTarget => ({
    tool,
    aliases: [],
    annotations: write ? { [DEFAULT_ACTION_ANNOTATION]: "ask" } : { readOnlyHint: true },
  });
  const rules: PolicyRule[] = [
    { match: "library.addBook", action: "allow" },
    { match: "library.deleteAll", action: "deny" },
  ];
  // The allowed field alone goes through; smuggled beside a denied one, the whole call is denied.
  assert.equal(
    gate(rules).check(request([library("addBook", true)], {}, "library"), context),
    undefined,
  );
  await assert.rejects(
    async () =>
      await gate(rules).check(
        request([library("addBook", true), library("deleteAll", true)], {}, "library"),
        context,
      ),
    isDenied(/Policy denies library\.deleteAll .*which this call would run/),
  );
  // A write no rule names gets the API's default (`writes`): ask, which a direct call cannot.
  await assert.rejects(
    async () =>
      await gate(rules).check(
        request([library("addBook", true), library("renameAll", true)], {}, "library"),
        context,
      ),
    isDenied(/approval of library\.renameAll .*apis\.library\.writes/),
  );
});

Deno.test("CallPolicy.check() applies a rule's argument conditions to the arguments as sent", async () => {
  const write: PolicyTarget = { tool: "write_file", aliases: [], annotations: undefined };
  const rules: PolicyRule[] = [
    {
      match: "fs.write_file",
      action: "allow",
      when: { args: { path: { glob: "ROOT/out/**" } } },
    },
    { match: "fs.write_file", action: "deny" },
  ];
  const fs = gate(rules);
  const call = (path: unknown) => fs.check(request([write], { path, content: "x" }, "fs"), context);
  assert.equal(call("/work/root/out/a.txt"), undefined);
  assert.equal(call("/work/root/out/deep/er/b.txt"), undefined);
  for (const outside of ["/work/root/out/../secret", "/work/root/secret", "out/a.txt", 42]) {
    await assert.rejects(
      async () => await call(outside),
      isDenied(/Policy denies fs\.write_file \(rule "fs\.write_file"\)/),
      String(outside),
    );
  }
  // An annotation and argument conditions in one `when` must both hold.
  const both = gate([{
    match: "fs.*",
    action: "deny",
    when: { annotation: "destructiveHint", args: { mode: { equals: "overwrite" } } },
  }]);
  const destructive: PolicyTarget = { ...write, annotations: { destructiveHint: true } };
  assert.equal(both.check(request([write], { mode: "overwrite" }, "fs"), context), undefined);
  assert.equal(both.check(request([destructive], { mode: "append" }, "fs"), context), undefined);
  await assert.rejects(
    async () => await both.check(request([destructive], { mode: "overwrite" }, "fs"), context),
    isDenied(/when destructiveHint and mode = "overwrite"/),
  );
});
