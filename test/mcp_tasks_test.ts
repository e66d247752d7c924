/**
 * End-to-end over `/mcp` with 2026-07-28 requests: a client that declares the tasks extension
 * gets a task for `exec` and `run_script` whose id is the run's id (the same run in `gateway
 * history`); `tasks/get` follows it to its inlined result, shows a held call as
 * `input_required` that `tasks/update` answers, and `tasks/cancel` cancels it. Without tasks, a
 * held call is an input-required result whose retry (the answer and the signed state) lets the
 * run finish; a forged state is refused.
 * @module
 */

import assert from "node:assert/strict";
import { withHarness } from "./support/gateway_harness.ts";
import { modernRequest, resultText, TASKS } from "./support/modern_mcp.ts";
import { pollUntil } from "./support/poll_until.ts";

const TOOL = `/** Removes everything (pretend). */
export function wipe(args: { what: string }): string {
  return \`wiped \${args.what}\`;
}
`;

const FILES = {
  "tools/danger.ts": TOOL,
  "scripts/slow.ts": `await new Promise((r) => setTimeout(r, 300));\nconsole.log("slow done");\n`,
  "gateway.json": JSON.stringify({ policy: [{ match: "danger.wipe", action: "ask" }] }),
};

const WITH_TASKS = { elicitation: {}, extensions: { [TASKS]: {} } };

Deno.test("MCP tasks: exec and run_script run as tasks a 2026-07-28 client follows, answers and cancels; the task is the run in history", async () => {
  await withHarness({ files: FILES }, async (gw) => {
    const { port, token } = await gw.server();
    const url = `http://127.0.0.1:${port}/mcp`;
    const call = (
      method: string,
      params: Record<string, unknown>,
      caps: Record<string, unknown> = WITH_TASKS,
    ) => modernRequest(url, token, method, params, caps);

    // exec as a task: the answer is the task, tasks/get follows it to the inlined result.
    const created = await call("tools/call", {
      name: "exec",
      arguments: {
        source: `await new Promise((r) => setTimeout(r, 500)); console.log("hi"); 6 * 7`,
      },
    });
    assert.equal(created.result?.resultType, "task", JSON.stringify(created));
    const taskId = String(created.result?.taskId);
    assert.equal(created.result?.status, "working");
    assert.ok(Number(created.result?.ttlMs) > 0 && Number(created.result?.pollIntervalMs) > 0);
    const working = await call("tasks/get", { taskId });
    assert.equal(working.result?.resultType, "complete");
    assert.equal(working.result?.taskId, taskId);
    const done = await pollUntil("the task to complete", async () => {
      const got = await call("tasks/get", { taskId });
      return got.result?.status === "completed" ? got.result : undefined;
    });
    assert.equal(resultText(done.result as Record<string, unknown>), "hi\n42");
    const shown = await gw.cli(["history", "show", taskId, "--json"]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.equal((JSON.parse(shown.stdout) as { runId: string }).runId, taskId);

    // A named script as a task.
    const script = await call("tools/call", { name: "run_script", arguments: { name: "slow" } });
    assert.equal(script.result?.resultType, "task", JSON.stringify(script));
    const scriptDone = await pollUntil("the script's task to complete", async () => {
      const got = await call("tasks/get", { taskId: String(script.result?.taskId) });
      return got.result?.status === "completed" ? got.result : undefined;
    });
    assert.match(resultText(scriptDone.result as Record<string, unknown>), /slow done/);

    // A held call: the task waits for input; tasks/update answers it.
    const held = await call("tools/call", {
      name: "exec",
      arguments: { source: `await tools.danger.wipe({ what: "task" })` },
    });
    const heldId = String(held.result?.taskId);
    const asking = await pollUntil("the held call to show", async () => {
      const got = await call("tasks/get", { taskId: heldId });
      return got.result?.status === "input_required" ? got.result : undefined;
    });
    const requests = asking.inputRequests as Record<
      string,
      { method: string; params: { message: string } }
    >;
    const [key, request] = Object.entries(requests)[0]!;
    assert.equal(request.method, "elicitation/create");
    assert.match(request.params.message, /danger\.wipe\(\{"what":"task"\}\) is held by policy/);
    const ack = await call("tasks/update", {
      taskId: heldId,
      inputResponses: { [key]: { action: "accept", content: { allow: true } } },
    });
    assert.deepEqual(Object.keys(ack.result ?? {}).filter((k) => k !== "_meta"), ["resultType"]);
    const wiped = await pollUntil("the held task to complete", async () => {
      const got = await call("tasks/get", { taskId: heldId });
      return got.result?.status === "completed" ? got.result : undefined;
    });
    assert.equal(resultText(wiped.result as Record<string, unknown>), "wiped task");

    // Cancel: an empty acknowledgement, then the task is cancelled; again on a finished one.
    const long = await call("tools/call", {
      name: "exec",
      arguments: { source: `await new Promise((r) => setTimeout(r, 60_000))` },
    });
    const longId = String(long.result?.taskId);
    const cancelled = await call("tasks/cancel", { taskId: longId });
    assert.equal(cancelled.result?.resultType, "complete");
    assert.equal("status" in (cancelled.result ?? {}), false);
    await pollUntil("the task to be cancelled", async () => {
      const got = await call("tasks/get", { taskId: longId });
      return got.result?.status === "cancelled" || undefined;
    });
    assert.equal((await call("tasks/cancel", { taskId: longId })).result?.resultType, "complete");

    // The extension is required, and unknown tasks are the caller's mistake.
    const undeclared = await call("tasks/get", { taskId }, {});
    assert.equal(undeclared.status, 400);
    assert.equal(undeclared.error?.code, -32021);
    assert.deepEqual(undeclared.error?.data?.requiredCapabilities, {
      extensions: { [TASKS]: {} },
    });
    const unknown = await call("tasks/get", { taskId: "nope" });
    assert.equal(unknown.error?.code, -32602, JSON.stringify(unknown));
    // A client that does not ask for tasks gets the result in the call's answer.
    const plain = await call("tools/call", { name: "exec", arguments: { source: "1 + 1" } }, {});
    assert.equal(plain.result?.resultType, "complete");
    assert.equal(resultText(plain.result), "2");
  });
});

Deno.test("MCP 2026-07-28 without tasks: a held call is an input-required result; the retry with the answer finishes the run, a forged state is refused", async () => {
  await withHarness({ files: FILES }, async (gw) => {
    const { port, token } = await gw.server();
    const url = `http://127.0.0.1:${port}/mcp`;
    const exec = (extra: Record<string, unknown> = {}) =>
      modernRequest(url, token, "tools/call", {
        name: "exec",
        arguments: { source: `await tools.danger.wipe({ what: "mrtr" })` },
        ...extra,
      }, { elicitation: {} });

    const first = await exec();
    assert.equal(first.result?.resultType, "input_required", JSON.stringify(first));
    const requests = first.result?.inputRequests as Record<string, { method: string }>;
    const [key] = Object.keys(requests);
    assert.equal(requests[key!]!.method, "elicitation/create");
    const state = String(first.result?.requestState);

    const forged = await exec({
      inputResponses: { [key!]: { action: "accept", content: { allow: true } } },
      requestState: `${state}x`,
    });
    assert.equal(forged.error?.code, -32602, JSON.stringify(forged));

    const second = await exec({
      inputResponses: { [key!]: { action: "accept", content: { allow: true } } },
      requestState: state,
    });
    assert.equal(second.result?.resultType, "complete", JSON.stringify(second));
    assert.equal(resultText(second.result), "wiped mrtr");
    const runId = (second.result?.structuredContent as { runId: string }).runId;
    const shown = await gw.cli(["history", "show", runId, "--json"]);
    assert.match(shown.stdout, /mcp:input-required/);

    // A client that cannot elicit is told the approve command in progress, and the call waits.
    const blind = modernRequest(url, token, "tools/call", {
      name: "exec",
      arguments: { source: `await tools.danger.wipe({ what: "blind" })` },
    }, {});
    const pending = await pollUntil("the blind call to be held", async () => {
      const list = await gw.cli(["approvals", "--json"]);
      const held = (JSON.parse(list.stdout) as { pending: { runId: string; args: string }[] })
        .pending.find((p) => p.args.includes("blind"));
      return held;
    });
    assert.equal((await gw.cli(["approve", pending.runId])).code, 0);
    const answered = await blind;
    assert.equal(resultText(answered.result), "wiped blind");
  });
});
