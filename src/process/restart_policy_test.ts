import assert from "node:assert/strict";
import { RestartPolicy } from "./restart_policy.ts";

Deno.test("`RestartPolicy` doubles the delay after each failure up to the ceiling", () => {
  const policy = new RestartPolicy();
  const delays = Array.from({ length: 9 }, () => policy.onFailure("start", 0).delayMs);
  assert.deepStrictEqual(delays, [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
});

Deno.test("`RestartPolicy.onReady()` starts the back-off over", () => {
  const policy = new RestartPolicy();
  policy.onFailure("start", 0);
  policy.onFailure("start", 0);
  policy.onReady();
  assert.deepStrictEqual(policy.onFailure("crash", 0), { delayMs: 500, breakerOpen: false });
});

Deno.test("`RestartPolicy` opens the breaker at the fifth crash within a minute", () => {
  const policy = new RestartPolicy();
  for (let i = 0; i < 4; i++) {
    assert.deepStrictEqual(policy.onFailure("crash", i * 1000).breakerOpen, false);
    policy.onReady();
  }
  assert.deepStrictEqual(policy.onFailure("crash", 4000), { delayMs: 300_000, breakerOpen: true });
  // After the hold the history starts empty.
  assert.deepStrictEqual(policy.onFailure("crash", 400_000).breakerOpen, false);
});

Deno.test("`RestartPolicy` forgets crashes older than the window", () => {
  const policy = new RestartPolicy({ breakerCrashes: 3, breakerWindowMs: 10_000 });
  assert.deepStrictEqual(policy.onFailure("crash", 0).breakerOpen, false);
  assert.deepStrictEqual(policy.onFailure("crash", 5_000).breakerOpen, false);
  assert.deepStrictEqual(policy.onFailure("crash", 12_000).breakerOpen, false);
  assert.deepStrictEqual(policy.onFailure("crash", 13_000).breakerOpen, true);
});

Deno.test("`RestartPolicy` does not count failed starts towards the breaker", () => {
  const policy = new RestartPolicy({ breakerCrashes: 2 });
  for (let i = 0; i < 10; i++) {
    assert.deepStrictEqual(policy.onFailure("start", i).breakerOpen, false);
  }
});

Deno.test("`RestartPolicy.breakerReason()` names the crashes and the window that opened it", () => {
  const policy = new RestartPolicy({ breakerCrashes: 3, breakerWindowMs: 10_000 });
  assert.equal(policy.breakerReason(), "3 crashes within 10 s: held down");
});
