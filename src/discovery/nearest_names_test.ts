import assert from "node:assert/strict";
import { editDistance, nearestNames } from "./nearest_names.ts";

Deno.test("`editDistance()` counts inserts, deletes, replacements and swaps", () => {
  assert.equal(editDistance("", ""), 0);
  assert.equal(editDistance("get", "get"), 0);
  assert.equal(editDistance("", "abc"), 3);
  assert.equal(editDistance("get", "gets"), 1);
  assert.equal(editDistance("get", "set"), 1);
  assert.equal(editDistance("gte", "get"), 1);
  assert.equal(editDistance("kitten", "sitting"), 3);
});

Deno.test("`nearestNames()` orders by distance, then length difference, then name", () => {
  const names = ["get_item", "set_item", "get_items", "list_items", "delete_item"];
  assert.deepEqual(nearestNames("get_itme", names), ["get_item", "set_item", "get_items"]);
  assert.deepEqual(nearestNames("get_itme", names, { limit: 1 }), ["get_item"]);
  assert.deepEqual(nearestNames("xyz", names), []);
});

Deno.test("`nearestNames()` ignores case and hyphens and offers names containing the input", () => {
  assert.deepEqual(nearestNames("GET-ITEM", ["get_item"]), ["get_item"]);
  assert.deepEqual(nearestNames("item", ["get_item", "other"]), ["get_item"]);
  assert.deepEqual(nearestNames("abc", ["abd", "abc_long_name"], { maxDistance: 0 }), []);
});
