import assert from "node:assert/strict";
import type { ToolDescriptor } from "../namespaces/namespace.ts";
import { buildToolIdentifiers } from "./catalogue_snapshot.ts";

function catalogue(names: string[]) {
  const tools: ToolDescriptor[] = names.map((originalName) => ({
    originalName,
    description: "",
    inputType: null,
    inputOptional: true,
    outputType: "unknown",
    params: [],
  }));
  return { tools, declarations: "", warnings: [] };
}

Deno.test("`buildToolIdentifiers()` sanitises names, suffixes reserved words and collisions", () => {
  const { identifiers, refused, warnings } = buildToolIdentifiers(
    catalogue(["get-item", "get_item", "delete", "3d", "plain"]),
  );
  assert.equal(identifiers.get("get_item"), "get_item");
  assert.equal(identifiers.get("get-item"), "get_item_2");
  assert.equal(identifiers.get("delete"), "delete_");
  assert.equal(identifiers.get("3d"), "_3d");
  assert.equal(identifiers.get("plain"), "plain");
  assert.deepEqual(refused, []);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /"get-item" and "get_item" both become "get_item"/);
});

Deno.test("`buildToolIdentifiers()` keeps tools named like script globals, refuses __proto__", () => {
  const { identifiers, refused } = buildToolIdentifiers(
    catalogue(["search", "describe", "tools", "__proto__"]),
  );
  assert.equal(identifiers.get("search"), "search");
  assert.equal(identifiers.get("describe"), "describe");
  assert.equal(identifiers.get("tools"), "tools");
  assert.equal(identifiers.has("__proto__"), false);
  assert.deepEqual(refused.map((r) => r.name), ["__proto__"]);
});
