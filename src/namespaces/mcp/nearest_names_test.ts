import assert from "node:assert/strict";
import { nearestNames } from "./nearest_names.ts";

const TOOLS = ["echo", "get-sum", "get-env", "get-tiny-image", "read_file", "read_text_file"];

Deno.test("`nearestNames()` suggests a tool one transposition away", () => {
  assert.deepStrictEqual(nearestNames("ecoh", TOOLS), ["echo"]);
});

Deno.test("`nearestNames()` treats - and _ alike and ignores case", () => {
  assert.deepStrictEqual(nearestNames("GET_SUM", TOOLS)[0], "get-sum");
});

Deno.test("`nearestNames()` ranks names containing the query first and caps the count", () => {
  assert.deepStrictEqual(nearestNames("read", TOOLS), ["read_file", "read_text_file"]);
  assert.deepStrictEqual(nearestNames("get", TOOLS, { limit: 2 }).length, 2);
});

Deno.test("`nearestNames()` returns nothing when no name is close", () => {
  assert.deepStrictEqual(nearestNames("completely-different", TOOLS), []);
});
