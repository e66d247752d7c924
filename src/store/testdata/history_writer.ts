/**
 * Test fixture: writes runs to the history at `Deno.args[0]` in a loop, printing
 * `committed <runId>` after each `record()` returns, until it is killed.
 * @module
 */

import { openGatewayDatabase } from "../gateway_database.ts";
import { RunHistory } from "../run_history.ts";

const path = Deno.args[0];
if (path === undefined) throw new TypeError("Cannot start history writer: no database path given");
const history = new RunHistory(openGatewayDatabase(path));
const filler = "x".repeat(4096);
for (let i = 0;; i++) {
  const runId = `run-${Deno.pid}-${i}`;
  history.record({
    runId,
    startedAt: Date.now(),
    durationMs: 1,
    source: `console.log(${i})`,
    args: ["a", String(i)],
    stdinBytes: 0,
    cwd: "/tmp",
    client: "test",
    status: i % 3 === 0 ? "failed" : "ok",
    errorKind: i % 3 === 0 ? "ScriptError" : null,
    errorMessage: i % 3 === 0 ? "boom" : null,
    stdout: `${i}\n${filler}`,
    stderr: "",
    result: JSON.stringify({ i }),
    exitCode: 0,
    toolCalls: [
      {
        namespace: "kv",
        tool: "get",
        startedAt: Date.now(),
        durationMs: 0,
        ok: true,
        errorKind: null,
      },
      {
        namespace: "kv",
        tool: "set",
        startedAt: Date.now(),
        durationMs: 0,
        ok: false,
        errorKind: "ToolError",
      },
    ],
    name: null,
  });
  console.log(`committed ${runId}`);
}
