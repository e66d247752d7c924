/**
 * Small assertions about promises that several unit tests share: a promise that must reject.
 * (Conditions that must come true in time: `poll_until.ts`.)
 * @module
 */

import assert from "node:assert/strict";

/** Resolves with what `promise` rejected with; fails the test when it fulfils. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return await promise.then(() => assert.fail("expected a rejection"), (error: unknown) => error);
}
