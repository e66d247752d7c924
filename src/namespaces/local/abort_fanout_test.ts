import assert from "node:assert/strict";
import { AbortFanout } from "./abort_fanout.ts";

Deno.test("AbortFanout.add() calls every callback still registered when the signal aborts", () => {
  const fanout = new AbortFanout();
  const controller = new AbortController();
  const heard: string[] = [];
  fanout.add(controller.signal, () => heard.push("a"));
  const removeB = fanout.add(controller.signal, () => heard.push("b"));
  fanout.add(controller.signal, () => heard.push("c"));
  removeB();
  controller.abort();
  assert.deepEqual(heard, ["a", "c"]);
  controller.abort();
  assert.deepEqual(heard, ["a", "c"], "each callback is called once");
});

Deno.test("AbortFanout.add() keeps the signals apart", () => {
  const fanout = new AbortFanout();
  const first = new AbortController();
  const second = new AbortController();
  const heard: string[] = [];
  fanout.add(first.signal, () => heard.push("first"));
  fanout.add(second.signal, () => heard.push("second"));
  second.abort();
  assert.deepEqual(heard, ["second"]);
});

Deno.test("AbortFanout.add() on an aborted signal calls back in a microtask unless removed", async () => {
  const fanout = new AbortFanout();
  const controller = new AbortController();
  controller.abort();
  const heard: string[] = [];
  fanout.add(controller.signal, () => heard.push("kept"));
  const remove = fanout.add(controller.signal, () => heard.push("removed"));
  remove();
  assert.deepEqual(heard, [], "not called synchronously");
  await Promise.resolve();
  assert.deepEqual(heard, ["kept"]);
});
