import assert from "node:assert/strict";
import { ProgressThrottle, type ProgressUpdate } from "./progress_throttle.ts";
import { pollUntil } from "../../../test/support/poll_until.ts";

Deno.test("ProgressThrottle.offer() lets a short burst through whole, in order", () => {
  const seen: ProgressUpdate[] = [];
  const gate = new ProgressThrottle((u) => seen.push(u));
  try {
    // The reference server's three updates, 50 ms apart, as they arrive: none is dropped.
    gate.offer({ progress: 0, total: 100 });
    gate.offer({ progress: 50, total: 100 });
    gate.offer({ progress: 100, total: 100 });
    assert.deepEqual(seen.map((u) => u.progress), [0, 50, 100]);
  } finally {
    gate.end();
  }
});

Deno.test("ProgressThrottle.offer() holds a flood to the steady rate after the burst, never going back", async () => {
  const seen: number[] = [];
  const gate = new ProgressThrottle((u) => seen.push(u.progress), { burst: 5, perSecond: 10 });
  const started = performance.now();
  let n = 0;
  try {
    // A thousand updates a second for 300 ms.
    while (performance.now() - started < 300) {
      gate.offer({ progress: ++n });
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    const elapsed = performance.now() - started;
    // The burst, then at most one per 100 ms (one more for the timer that fires last).
    assert.ok(seen.length <= 5 + Math.ceil(elapsed / 100) + 1, `${seen.length} of ${n}`);
    assert.ok(seen.length >= 5, `${seen.length} of ${n}`);
    assert.deepEqual(seen, [...seen].sort((a, b) => a - b));
    // The latest update is not lost: it goes out once a token is back.
    await pollUntil("the latest update", () => seen.at(-1) === n, { timeoutMs: 5000 });
  } finally {
    gate.end();
  }
});

Deno.test("ProgressThrottle.offer() delivers a final update at once, even in a flood", () => {
  const seen: number[] = [];
  const gate = new ProgressThrottle((u) => seen.push(u.progress), { burst: 1, now: () => 0 });
  try {
    gate.offer({ progress: 1, total: 3 });
    gate.offer({ progress: 2, total: 3 });
    gate.offer({ progress: 3, total: 3 });
    assert.deepEqual(seen, [1, 3]);
  } finally {
    gate.end();
  }
});

Deno.test("ProgressThrottle.end() drops the update still waiting", async () => {
  const seen: number[] = [];
  const gate = new ProgressThrottle((u) => seen.push(u.progress), { burst: 1, perSecond: 100 });
  gate.offer({ progress: 1 });
  gate.offer({ progress: 2 });
  gate.end();
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.deepEqual(seen, [1]);
});
