/**
 * Constant-time comparison of secrets (tokens), so response timing reveals nothing about how
 * much of a guess was right.
 * @module
 */

import { timingSafeEqual } from "node:crypto";

/** Compares two strings in time that depends only on their lengths. */
export function timingSafeEqualText(expected: string, given: string): boolean {
  const a = new TextEncoder().encode(expected);
  const b = new TextEncoder().encode(given);
  // Compare against itself when lengths differ so the work done does not depend on `given`.
  if (a.length !== b.length) {
    timingSafeEqual(a, a);
    return false;
  }
  return timingSafeEqual(a, b);
}
