import assert from "node:assert/strict";
import { newRunId } from "./script_runner.ts";

Deno.test("newRunId() is the start time in 9 base-36 digits then 12 random hex digits", () => {
  const before = Date.now();
  const ids = Array.from({ length: 200 }, () => newRunId());
  const after = Date.now();
  for (const id of ids) {
    assert.match(id, /^[0-9a-z]{9}[0-9a-f]{12}$/);
    const time = parseInt(id.slice(0, 9), 36);
    assert.ok(time >= before && time <= after, `${id}: time ${time} not in [${before}, ${after}]`);
  }
  assert.equal(new Set(ids).size, ids.length);
});
