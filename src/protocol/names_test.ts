import assert from "node:assert/strict";
import { buildToolIdentifiers, editDistance, nearestNames } from "./names.ts";
import { toolDescriptor } from "../../test/support/tool_descriptor.ts";

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

function catalogue(names: string[]) {
  const tools = names.map((originalName) => toolDescriptor(originalName));
  return { tools, declarations: "", warnings: [] };
}

Deno.test("`buildToolIdentifiers()` sanitises names, suffixes reserved words and collisions", () => {
  const { identifiers, refused, warnings } = buildToolIdentifiers(
    catalogue(["get-item", "get_item", "delete", "3d", "plain"]),
  );
  assert.equal(identifiers["get_item"], "get_item");
  assert.equal(identifiers["get-item"], "get_item_2");
  assert.equal(identifiers["delete"], "delete_");
  assert.equal(identifiers["3d"], "_3d");
  assert.equal(identifiers["plain"], "plain");
  assert.deepEqual(refused, []);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /"get-item" and "get_item" both become "get_item"/);
});

Deno.test("`buildToolIdentifiers()` keeps tools named like script globals, refuses __proto__", () => {
  const { identifiers, refused } = buildToolIdentifiers(
    catalogue(["search", "describe", "tools", "__proto__"]),
  );
  assert.equal(identifiers["search"], "search");
  assert.equal(identifiers["describe"], "describe");
  assert.equal(identifiers["tools"], "tools");
  assert.equal(Object.hasOwn(identifiers, "__proto__"), false);
  assert.deepEqual(refused.map((r) => r.name), ["__proto__"]);
});
