import assert from "node:assert/strict";
import { runToToolResult } from "./run_tool_result.ts";
import type { RunDocument } from "../protocol/run_document.ts";

const base: RunDocument = {
  runId: "r1",
  ok: false,
  stdout: "out\n",
  stderr: "",
  exitCode: 1,
  durationMs: 5,
  toolCalls: 0,
  stdoutTruncated: false,
  warnings: [],
  attachments: [],
  error: { kind: "ToolError", message: "no such issue", line: 3, hint: "check the id" },
};

Deno.test("a failed run's text starts with error[Kind]; its structured content is the run document", () => {
  const result = runToToolResult(base);
  assert.equal(result.isError, true);
  assert.match(
    String(result.content[0]!.text),
    /^error\[ToolError\]: no such issue \(line 3\)\nhint: check the id\nout$/,
  );
  assert.deepEqual(result.structuredContent, base);
});

Deno.test("media above the threshold is linked to a gateway resource, smaller media inlined", () => {
  const { error: _failed, ...worked } = base;
  const result = runToToolResult({
    ...worked,
    ok: true,
    attachments: [
      { type: "image", data: "AAAA", mimeType: "image/png" },
      { type: "audio", data: "A".repeat(4000), mimeType: "audio/wav" },
    ],
  }, { linkAbove: 1000 });
  assert.equal(result.content[1]!.type, "image");
  assert.deepEqual(result.content[2], {
    type: "resource_link",
    uri: "gateway://runs/r1/attachments/1",
    name: "audio-1",
    title: "audio 2 attached by run r1",
    description: "audio the script attached; too large to inline",
    mimeType: "audio/wav",
    size: 3000,
  });
});

Deno.test("a yielded run tells the model to call wait", () => {
  const result = runToToolResult({ status: "running", runId: "r2", stdout: "so far" });
  assert.match(
    String(result.content[0]!.text),
    /call wait with runId "r2"\nstdout so far:\nso far/,
  );
});
