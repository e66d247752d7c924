import assert from "node:assert/strict";
import { answeredRoundTripMs, relayedRoundTripMs } from "./call_breakdown.ts";

Deno.test("the answered round trip asks its answer once per line, warm-up lines included", async () => {
  let answered = 0;
  const ms = await answeredRoundTripMs(3, 2, () => Promise.resolve(++answered));
  assert.equal(answered, 5);
  assert.ok(Number.isFinite(ms) && ms > 0, `median ${ms} ms`);
});

Deno.test("the relayed round trip reports the relay's CPU per call beside its median", async () => {
  const { ms, relayCpuUsPerCall } = await relayedRoundTripMs(20);
  assert.ok(Number.isFinite(ms) && ms > 0, `median ${ms} ms`);
  assert.ok(
    Number.isFinite(relayCpuUsPerCall) && relayCpuUsPerCall >= 0,
    `relay CPU ${relayCpuUsPerCall} µs per call`,
  );
});

Deno.test("an answer that fails ends the answered round trip with its error", async () => {
  await assert.rejects(
    answeredRoundTripMs(3, 0, () => Promise.reject(new Error("upstream gone"))),
    /upstream gone/,
  );
});
