import { assertEquals } from "node:assert/strict";
import { nearestNames } from "./nearest_names.ts";

const TOOLS = ["echo", "get-sum", "get-env", "get-tiny-image", "read_file", "read_text_file"];

Deno.test("`nearestNames()` suggests a tool one transposition away", () => {
  assertEquals(nearestNames("ecoh", TOOLS), ["echo"]);
});

Deno.test("`nearestNames()` treats - and _ alike and ignores case", () => {
  assertEquals(nearestNames("GET_SUM", TOOLS)[0], "get-sum");
});

Deno.test("`nearestNames()` ranks names containing the query first and caps the count", () => {
  assertEquals(nearestNames("read", TOOLS), ["read_file", "read_text_file"]);
  assertEquals(nearestNames("get", TOOLS, { limit: 2 }).length, 2);
});

Deno.test("`nearestNames()` returns nothing when no name is close", () => {
  assertEquals(nearestNames("completely-different", TOOLS), []);
});
