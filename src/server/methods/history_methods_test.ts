/**
 * The history methods over a real SQLite store in a temp file and a tool map: no server, no
 * processes. A stored call is shown with the path a script types while its tool is served.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { createLogger } from "../../logger.ts";
import { RpcCode, RpcError } from "../../protocol/json_rpc.ts";
import type { ToolMap } from "../../protocol/channel_messages.ts";
import { openGatewayDatabase } from "../../store/gateway_database.ts";
import type { RunRecord } from "../../store/run_history.ts";
import { SqliteStore } from "../../store/sqlite_store.ts";
import { Router } from "../router.ts";
import { historyMethods } from "./history_methods.ts";

function run(overrides: Partial<RunRecord>): RunRecord {
  return {
    runId: crypto.randomUUID(),
    startedAt: 1_700_000_000_000,
    durationMs: 5,
    source: "await tools.everything.get_sum({ a: 1, b: 2 })",
    args: [],
    stdinBytes: 0,
    cwd: "/project",
    client: "cli",
    status: "ok",
    errorKind: null,
    errorMessage: null,
    stdout: "",
    stderr: "",
    result: "3",
    exitCode: 0,
    toolCalls: [],
    name: null,
    ...overrides,
  };
}

/** A router over the history methods and a store in a temp dir; closed by the caller. */
async function historyRouter(toolMap: ToolMap) {
  const dir = await Deno.makeTempDir({ prefix: "history-methods-" });
  const store = new SqliteStore(openGatewayDatabase(join(dir, "gateway.db")));
  const router = Router.over(
    historyMethods,
    { history: store.history, registry: { toolMap: () => toolMap } },
    createLogger({ level: "error", write: () => {} }),
  );
  const call = (method: string, params: unknown) =>
    router.dispatch(method, params, { client: "test", signal: new AbortController().signal });
  return {
    store,
    call,
    [Symbol.asyncDispose]: async () => {
      await store.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

Deno.test("history.get shows each stored call with its typed name while its tool is served", async () => {
  await using history = await historyRouter({
    everything: { name: "everything", tools: { get_sum: "get-sum" } },
  });
  const stored = run({
    toolCalls: [
      {
        namespace: "everything",
        tool: "get-sum",
        startedAt: 1,
        durationMs: 1,
        ok: true,
        errorKind: null,
      },
      {
        namespace: "gone",
        tool: "old-tool",
        startedAt: 2,
        durationMs: 1,
        ok: true,
        errorKind: null,
      },
    ],
  });
  await history.store.history.record(stored);
  const answer = await history.call("history.get", { id: stored.runId }) as {
    runId: string;
    toolCalls: { tool: string; typedName?: string }[];
  };
  assert.equal(answer.runId, stored.runId);
  assert.deepEqual(
    answer.toolCalls.map((call) => [call.tool, call.typedName]),
    [["get-sum", "everything.get_sum"], ["old-tool", undefined]],
  );
});

Deno.test("history.get of a run not stored is the caller's mistake, pointing at gateway history", async () => {
  await using history = await historyRouter({});
  const error = await history.call("history.get", { id: "no-such-run" }).then(
    () => assert.fail("history.get of an unknown run answered"),
    (error: unknown) => error,
  );
  assert.ok(error instanceof RpcError);
  assert.equal(error.code, RpcCode.InvalidParams);
  assert.match(error.message, /No run "no-such-run" in history \(gateway history lists runs\)/);
});

Deno.test("history.list pages the stored runs newest first, and keeps only failed ones when asked", async () => {
  await using history = await historyRouter({});
  const old = run({ startedAt: 1_000 });
  const failed = run({ startedAt: 2_000, status: "failed", errorKind: "ToolError" });
  const newest = run({ startedAt: 3_000 });
  for (const r of [old, failed, newest]) await history.store.history.record(r);

  const page = await history.call("history.list", { limit: 2 }) as { runs: { runId: string }[] };
  assert.deepEqual(page.runs.map((r) => r.runId), [newest.runId, failed.runId]);
  const next = await history.call("history.list", { limit: 2, offset: 2 }) as {
    runs: { runId: string }[];
  };
  assert.deepEqual(next.runs.map((r) => r.runId), [old.runId]);
  const onlyFailed = await history.call("history.list", { failed: true }) as {
    runs: { runId: string; status: string }[];
  };
  assert.deepEqual(onlyFailed.runs.map((r) => [r.runId, r.status]), [[failed.runId, "failed"]]);
});
