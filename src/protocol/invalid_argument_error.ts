/**
 * A caller's argument the domain code refuses (an ambiguous run-id prefix, a search limit out
 * of range, an unknown namespace to search): the one error class the router reports as the
 * caller's mistake (`InvalidParams`), where a plain `RangeError` or `TypeError` is a bug.
 * It extends `RangeError`, so its wire `kind` stays "RangeError" and existing checks hold.
 * @module
 */

/** An argument the caller must change; the message names it and says what is accepted. */
export class InvalidArgumentError extends RangeError {}
