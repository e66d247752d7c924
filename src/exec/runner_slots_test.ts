import assert from "node:assert/strict";
import { RunnerSlots } from "./runner_slots.ts";

Deno.test("runner slots: a given-back slot is reused before a new one is made", () => {
  const slots = new RunnerSlots();
  assert.deepEqual([slots.take(), slots.take(), slots.take()], [0, 1, 2]);
  slots.give(2);
  slots.give(0);
  assert.equal(slots.take(), 0);
  assert.equal(slots.take(), 2);
  assert.equal(slots.take(), 3);
  assert.equal(slots.size, 4);
});

Deno.test("runner slots: a slot given back twice or never taken is refused", () => {
  const slots = new RunnerSlots();
  const slot = slots.take();
  slots.give(slot);
  assert.throws(() => slots.give(slot), /runner slot 0 was not taken/);
  assert.throws(() => slots.give(7), /runner slot 7 was not taken/);
});
