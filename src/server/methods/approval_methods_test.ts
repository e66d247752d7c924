/**
 * The approval methods over a real `Approvals`: no server, no runs. A held call is listed,
 * answered by whoever the caller names, pushed to a watcher, and an answer for nothing held
 * is the caller's mistake.
 * @module
 */

import assert from "node:assert/strict";
import { RpcCode, RpcError } from "../../protocol/json_rpc.ts";
import type { PendingApproval } from "../../protocol/wire_views.ts";
import { Approvals } from "../approvals.ts";
import { type CallerContext, Router } from "../router.ts";
import { type ApprovalMethodParts, approvalMethods } from "./approval_methods.ts";

const silent = { error: () => {} };

function caller(overrides: Partial<CallerContext> = {}): CallerContext {
  return { client: "ws", signal: new AbortController().signal, ...overrides };
}

async function rpcFailure(answer: Promise<unknown>): Promise<RpcError> {
  const error = await answer.then(() => assert.fail("the call answered"), (e: unknown) => e);
  assert.ok(error instanceof RpcError, `rejected with ${String(error)}`);
  return error;
}

/** Holds one call of run `runId`, as an `ask` rule does. */
function hold(approvals: Approvals, runId: string, signal = new AbortController().signal) {
  return approvals.request({
    runId,
    namespace: "fs",
    tool: "write_file",
    args: { path: "notes.txt" },
    rule: "ask fs.write_file",
    signal,
  });
}

Deno.test("approval.list shows a held call and approval.respond answers it as the caller names", async () => {
  const approvals = new Approvals();
  const router = Router.over(approvalMethods, { approvals, shared: null }, silent);
  const decision = hold(approvals, "run-1");

  const listed = await router.dispatch("approval.list", {}, caller()) as {
    pending: PendingApproval[];
  };
  assert.deepEqual(listed.pending.map((p) => [p.runId, p.namespace, p.tool]), [
    ["run-1", "fs", "write_file"],
  ]);
  assert.deepEqual(
    await router.dispatch("approval.respond", { runId: "run-1", allow: true, by: "ana" }, caller()),
    { answered: 1, allowed: true },
  );
  const answered = await decision;
  assert.equal(answered.allowed, true);
  assert.equal(answered.by, "ana");
  assert.deepEqual(await router.dispatch("approval.list", {}, caller()), { pending: [] });
});

Deno.test("approval.respond without a name is answered by the caller's client", async () => {
  const approvals = new Approvals();
  const router = Router.over(approvalMethods, { approvals, shared: null }, silent);
  const decision = hold(approvals, "run-2");
  await router.dispatch(
    "approval.respond",
    { runId: "run-2", allow: false },
    caller({ client: "cli" }),
  );
  assert.deepEqual({ ...await decision, at: 0 }, { allowed: false, by: "cli", at: 0 });
});

Deno.test("approval.respond for a run with nothing held, here or elsewhere, says so", async () => {
  const approvals = new Approvals();
  const asked: string[] = [];
  const shared: ApprovalMethodParts["shared"] = {
    pendingElsewhere: () => Promise.resolve([]),
    answerElsewhere: (id) => {
      asked.push(id);
      return Promise.resolve(id === "held-elsewhere" ? 1 : 0);
    },
  };
  const router = Router.over(approvalMethods, { approvals, shared }, silent);
  const error = await rpcFailure(
    router.dispatch("approval.respond", { runId: "run-9", allow: true }, caller()),
  );
  assert.equal(error.code, RpcCode.InvalidParams);
  assert.match(error.message, /No call of run "run-9" is waiting for approval/);
  // A call another instance holds is answered through the shared state.
  assert.deepEqual(
    await router.dispatch("approval.respond", { runId: "held-elsewhere", allow: true }, caller()),
    { answered: 1, allowed: true },
  );
  assert.deepEqual(asked, ["run-9", "held-elsewhere"]);
});

Deno.test("approval.watch pushes each new held call until the caller goes away", async () => {
  const approvals = new Approvals();
  const router = Router.over(approvalMethods, { approvals, shared: null }, silent);
  const refused = await rpcFailure(router.dispatch("approval.watch", {}, caller()));
  assert.equal(refused.code, RpcCode.InvalidRequest);
  assert.match(refused.message, /call it over WebSocket/);

  const pushed: [string, string][] = [];
  const gone = new AbortController();
  const watcher = caller({
    signal: gone.signal,
    notify: (method, params) => pushed.push([method, (params as PendingApproval).runId]),
  });
  assert.deepEqual(await router.dispatch("approval.watch", {}, watcher), { watching: true });
  const ended = new AbortController();
  hold(approvals, "run-3", ended.signal);
  gone.abort();
  hold(approvals, "run-4", ended.signal);
  assert.deepEqual(pushed, [["approval.pending", "run-3"]]);
  ended.abort(); // the held calls end, denied
});
