/**
 * The text of a caught value, for error messages that wrap it. One definition every layer may
 * import (it sits with the wire protocol, the lowest shared layer).
 * @module
 */

/**
 * The message of `error` when it is an `Error`, else its string form; `catch` clauses hand us
 * `unknown`, and wrapping messages need text.
 *
 * @example
 * ```ts
 * import { messageOf } from "./message_of.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(messageOf(new Error("disk full")), "disk full");
 * assert.equal(messageOf("plain text"), "plain text");
 * ```
 */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
