import assert from "node:assert/strict";
import { CallDeadlines } from "./call_deadlines.ts";
import { FakeClock } from "../../../test/support/fake_clock.ts";

Deno.test("CallDeadlines fires each deadline once it is reached, earliest first, on one timer", async () => {
  const clock = new FakeClock();
  const deadlines = new CallDeadlines(clock);
  const fired: string[] = [];
  const now = clock.now();
  deadlines.add(now + 60, () => fired.push("late"));
  deadlines.add(now + 20, () => fired.push("early"));
  assert.equal(clock.pending, 1, "one timer, armed for the earliest");
  await clock.advance(19);
  assert.deepEqual(fired, []);
  await clock.advance(1);
  assert.deepEqual(fired, ["early"]);
  await clock.advance(40);
  assert.deepEqual(fired, ["early", "late"]);
  assert.equal(deadlines.size, 0);
  assert.equal(clock.pending, 0);
});

Deno.test("CallDeadlines never fires a removed deadline, and clear() drops the timer", async () => {
  const clock = new FakeClock();
  const deadlines = new CallDeadlines(clock);
  const fired: string[] = [];
  const now = clock.now();
  const remove = deadlines.add(now + 10, () => fired.push("removed"));
  deadlines.add(now + 40, () => fired.push("kept"));
  remove();
  remove(); // idempotent
  await clock.advance(40);
  assert.deepEqual(fired, ["kept"]);
  deadlines.add(clock.now() + 60_000, () => fired.push("never"));
  assert.equal(deadlines.size, 1);
  deadlines.clear();
  assert.equal(deadlines.size, 0);
  assert.equal(clock.pending, 0);
});
