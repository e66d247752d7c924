/**
 * The one narrowing every reader of a parsed JSON document (an API description, a JSON Schema)
 * needs: "is this a plain object?".
 * @module
 */

/**
 * The value as a plain object, or undefined (arrays and null are not).
 *
 * @example
 * ```ts
 * import { asRecord } from "./as_record.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(asRecord({ a: 1 }), { a: 1 });
 * assert.equal(asRecord([1]), undefined);
 * ```
 */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Record<string, unknown>
    : undefined;
}
