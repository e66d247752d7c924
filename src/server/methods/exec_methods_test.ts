/**
 * The methods that run code, over their parts alone: a real run tracker whose runner must not
 * be reached, a SQLite store in a temp file, the configuration as a getter. Limits are checked
 * before a run starts, against the configuration in force at the call; `wait` finds a run
 * that is only in history; `cancel` and `wait` name what is wrong with an unknown run.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { gatewayConfigSchema } from "../../config/gateway_config.ts";
import { RpcCode, RpcError } from "../../protocol/json_rpc.ts";
import { openGatewayDatabase } from "../../store/gateway_database.ts";
import { SqliteStore } from "../../store/sqlite_store.ts";
import { Approvals } from "../approvals.ts";
import { type CallerContext, Router } from "../router.ts";
import { RunTracker } from "../run_tracker.ts";
import { execMethods } from "./exec_methods.ts";

const caller: CallerContext = { client: "cli", signal: new AbortController().signal };

async function rpcFailure(answer: Promise<unknown>): Promise<RpcError> {
  const error = await answer.then(() => assert.fail("the call answered"), (e: unknown) => e);
  assert.ok(error instanceof RpcError, `rejected with ${String(error)}`);
  return error;
}

/** The exec methods over a store in a temp dir and a config the test can replace. */
async function execRouter() {
  const dir = await Deno.makeTempDir({ prefix: "exec-methods-" });
  const store = new SqliteStore(openGatewayDatabase(join(dir, "gateway.db")));
  const state = {
    config: gatewayConfigSchema.parse({ exec: { maxStdinBytes: 8, timeoutMs: 1000 } }),
    runnerReached: 0,
  };
  const runs = new RunTracker({
    runner: () => {
      state.runnerReached++;
      throw new Error("no run may start in this test");
    },
    shared: null,
    maxQueuedRuns: () => 10,
  });
  const router = Router.over(execMethods, {
    runs,
    runner: { active: () => undefined },
    approvals: new Approvals(),
    shared: null,
    history: store.history,
    config: () => state.config,
    root: { dir },
  }, { error: () => {} });
  return {
    router,
    store,
    state,
    [Symbol.asyncDispose]: async () => {
      await store.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

Deno.test("exec refuses stdin over exec.maxStdinBytes before a run starts, per the config in force", async () => {
  await using exec = await execRouter();
  const error = await rpcFailure(
    exec.router.dispatch("exec", { source: "1", stdin: "123456789" }, caller),
  );
  assert.equal(error.code, RpcCode.InvalidParams);
  assert.match(error.message, /"stdin" is 9 bytes, over exec\.maxStdinBytes \(8\)/);
  assert.equal(exec.state.runnerReached, 0);

  // A reload that raises the cap applies to the next call: the limit is past, the run starts.
  exec.state.config = gatewayConfigSchema.parse({ exec: { maxStdinBytes: 64 } });
  await assert.rejects(
    exec.router.dispatch("exec", { source: "1", stdin: "123456789" }, caller),
    /Internal error: no run may start in this test/,
  );
  assert.equal(exec.state.runnerReached, 1);
});

Deno.test("exec refuses a per-run limit above the configured one, naming the config key", async () => {
  await using exec = await execRouter();
  const error = await rpcFailure(
    exec.router.dispatch("exec", { source: "1", timeoutMs: 5000 }, caller),
  );
  assert.equal(error.code, RpcCode.InvalidParams);
  assert.match(error.message, /"timeoutMs" 5000 is above the configured exec\.timeoutMs \(1000\)/);
  assert.equal(exec.state.runnerReached, 0);
});

Deno.test("wait answers a run that is only in history with its stored document", async () => {
  await using exec = await execRouter();
  await exec.store.history.record({
    runId: "stored-run",
    startedAt: 1_700_000_000_000,
    durationMs: 42,
    source: "console.log('hi'); ({ sum: 3 })",
    args: [],
    stdinBytes: 0,
    cwd: "/project",
    client: "cli",
    status: "failed",
    errorKind: "ToolError",
    errorMessage: "fs.read_file failed",
    stdout: "hi\n",
    stderr: "",
    result: JSON.stringify({ sum: 3 }),
    exitCode: 1,
    toolCalls: [
      {
        namespace: "fs",
        tool: "read_file",
        startedAt: 1,
        durationMs: 1,
        ok: false,
        errorKind: "ToolError",
      },
    ],
    name: null,
  });
  const document = await exec.router.dispatch("wait", { runId: "stored-run" }, caller);
  assert.deepEqual(document, {
    runId: "stored-run",
    ok: false,
    result: { sum: 3 },
    stdout: "hi\n",
    stderr: "",
    exitCode: 1,
    durationMs: 42,
    toolCalls: 1,
    stdoutTruncated: false,
    warnings: [],
    attachments: [],
    error: { kind: "ToolError", message: "fs.read_file failed" },
  });
});

Deno.test("wait and cancel of a run nobody knows are the caller's mistake", async () => {
  await using exec = await execRouter();
  const waited = await rpcFailure(exec.router.dispatch("wait", { runId: "nope" }, caller));
  assert.equal(waited.code, RpcCode.InvalidParams);
  assert.match(waited.message, /No run "nope": gateway history lists runs/);
  const cancelled = await rpcFailure(exec.router.dispatch("cancel", { runId: "nope" }, caller));
  assert.equal(cancelled.code, RpcCode.InvalidParams);
  assert.match(cancelled.message, /No run "nope" is in flight/);
});
