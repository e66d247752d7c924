import assert from "node:assert/strict";
import { FinishedRuns } from "./finished_runs.ts";
import type { RunDocument } from "../protocol/run_document.ts";

function doc(runId: string): RunDocument {
  return {
    runId,
    ok: true,
    stdout: "",
    stderr: "",
    exitCode: 0,
    durationMs: 1,
    toolCalls: 0,
    stdoutTruncated: false,
    warnings: [],
    attachments: [],
  };
}

Deno.test("FinishedRuns keeps the last runs and forgets the oldest beyond the limit", () => {
  const runs = new FinishedRuns(2);
  runs.add(doc("a"));
  runs.add(doc("b"));
  runs.add(doc("c"));
  assert.equal(runs.get("a"), undefined);
  assert.equal(runs.get("b")?.runId, "b");
  assert.equal(runs.get("c")?.runId, "c");
});
