import assert from "node:assert/strict";
import { ToolCallError } from "../namespaces/namespace.ts";
import { Approvals } from "./approvals.ts";
import { CallPolicy } from "./call_policy.ts";

function policy(match: string): CallPolicy {
  return new CallPolicy({
    rules: () => [{ match, action: "deny" }],
    approvals: new Approvals(),
    log: () => {},
  });
}

const context = {
  annotations: undefined,
  runId: undefined,
  signal: new AbortController().signal,
  onApproval: undefined,
  aliases: ["everything.get_env"],
};

Deno.test("CallPolicy.check() matches a rule written with the tool's identifier or original name", async () => {
  for (const match of ["everything.get_env", "everything.get-env", "everything.get_*"]) {
    await assert.rejects(
      async () => await policy(match).check("everything", "get-env", {}, context),
      (error: unknown) => error instanceof ToolCallError && error.kind === "PolicyDenied",
      match,
    );
  }
  await policy("everything.echo").check("everything", "get-env", {}, context);
});

Deno.test("CallPolicy.check() with no rule to apply lets the call go on in the same turn", () => {
  const none = new CallPolicy({ rules: () => [], approvals: new Approvals(), log: () => {} });
  assert.equal(none.check("everything", "get-env", {}, context), undefined);
  // A rule that applies, even one allowing the call, is decided by a promise.
  assert.ok(
    policy("everything.echo").check("everything", "get-env", {}, context) instanceof Promise,
  );
});
