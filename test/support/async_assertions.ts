/**
 * Small assertions about promises and conditions that several unit tests share: a promise that
 * must reject, and a condition that must come true within a time.
 * @module
 */

import assert from "node:assert/strict";

/** Resolves with what `promise` rejected with; fails the test when it fulfils. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return await promise.then(() => assert.fail("expected a rejection"), (error: unknown) => error);
}

/** Polls `condition` every 20 ms; fails the test when it is not true within `withinMs`. */
export async function waitFor(condition: () => boolean, withinMs: number): Promise<void> {
  const end = Date.now() + withinMs;
  while (!condition()) {
    if (Date.now() > end) assert.fail("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
