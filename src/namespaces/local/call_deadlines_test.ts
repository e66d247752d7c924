import assert from "node:assert/strict";
import { CallDeadlines } from "./call_deadlines.ts";
import { pollUntil } from "../../../test/support/poll_until.ts";

Deno.test("CallDeadlines fires each deadline once it is reached, earliest first", async () => {
  const deadlines = new CallDeadlines();
  const fired: string[] = [];
  const now = Date.now();
  deadlines.add(now + 60, () => fired.push("late"));
  deadlines.add(now + 20, () => fired.push("early"));
  await pollUntil("both deadlines to fire", () => fired.length === 2, { timeoutMs: 3000 });
  assert.deepEqual(fired, ["early", "late"]);
  assert.equal(deadlines.size, 0);
  deadlines.clear();
});

Deno.test("CallDeadlines never fires a removed deadline, and clear() drops the timer", async () => {
  const deadlines = new CallDeadlines();
  const fired: string[] = [];
  const now = Date.now();
  const remove = deadlines.add(now + 10, () => fired.push("removed"));
  deadlines.add(now + 40, () => fired.push("kept"));
  remove();
  remove(); // idempotent
  await pollUntil("the kept deadline to fire", () => fired.length > 0, { timeoutMs: 3000 });
  assert.deepEqual(fired, ["kept"]);
  deadlines.add(Date.now() + 60_000, () => fired.push("never"));
  assert.equal(deadlines.size, 1);
  deadlines.clear(); // no timer left behind (the test sanitizer would fail otherwise)
  assert.equal(deadlines.size, 0);
});
