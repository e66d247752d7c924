/**
 * The members a script reaches for on a value it takes for an array (`.map`, `.length` …): the
 * sign, at check time and at run time alike, that an object was used as a list, so a hint can
 * name the object's fields instead.
 * @module
 */

/** See the module doc. */
export const ARRAY_MEMBERS: ReadonlySet<string> = new Set([
  "map",
  "filter",
  "forEach",
  "reduce",
  "find",
  "findIndex",
  "some",
  "every",
  "slice",
  "join",
  "includes",
  "flatMap",
  "sort",
  "indexOf",
  "length",
  "at",
  "push",
  "entries",
  "keys",
  "values",
]);
