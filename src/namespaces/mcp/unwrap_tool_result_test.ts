import assert from "node:assert/strict";
import { type RawToolResult, ToolCallError } from "../namespace.ts";
import { unwrapToolResult } from "./unwrap_tool_result.ts";

function thrown(fn: () => unknown): ToolCallError {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof ToolCallError);
    return error;
  }
  throw new Error("expected a ToolCallError");
}

const plain = { namespace: "ns", tool: "t", hasOutputSchema: false };
const typed = { ...plain, hasOutputSchema: true };

Deno.test("`unwrapToolResult()` throws ToolError with the joined text when isError is set", () => {
  const raw: RawToolResult = {
    isError: true,
    content: [{ type: "text", text: "bad" }, { type: "image", data: "x", mimeType: "image/png" }, {
      type: "text",
      text: "worse",
    }],
  };
  const error = thrown(() => unwrapToolResult(raw, plain));
  assert.deepStrictEqual(error.kind, "ToolError");
  assert.deepStrictEqual(error.message, "bad\nworse");
  assert.deepStrictEqual(error.raw, raw);
});

Deno.test("`unwrapToolResult()` names the tool when an isError result has no text", () => {
  const error = thrown(() => unwrapToolResult({ isError: true, content: [] }, plain));
  assert.deepStrictEqual(error.message, "ns.t returned isError");
});

Deno.test("`unwrapToolResult()` prefers structuredContent over text", () => {
  const raw = { content: [{ type: "text", text: '{"a":1}' }], structuredContent: { a: 2 } };
  assert.deepStrictEqual(unwrapToolResult(raw, typed), { value: { a: 2 }, raw });
});

Deno.test("`unwrapToolResult()` parses JSON text only when the tool has no outputSchema", () => {
  const raw = { content: [{ type: "text", text: '[1, {"b": true}]' }] };
  assert.deepStrictEqual(unwrapToolResult(raw, plain).value, [1, { b: true }]);
  assert.deepStrictEqual(unwrapToolResult(raw, typed).value, '[1, {"b": true}]');
});

Deno.test("`unwrapToolResult()` keeps text that only looks like JSON as text", () => {
  for (const text of ["{not json", "[1, 2", "42", "null", "hello"]) {
    assert.deepStrictEqual(
      unwrapToolResult({ content: [{ type: "text", text }] }, plain).value,
      text,
    );
  }
});

Deno.test("`unwrapToolResult()` joins several text blocks with newlines before parsing", () => {
  const raw = { content: [{ type: "text", text: "one" }, { type: "text", text: "two" }] };
  assert.deepStrictEqual(unwrapToolResult(raw, plain).value, "one\ntwo");
  const split = { content: [{ type: "text", text: '{"a":' }, { type: "text", text: "1}" }] };
  assert.deepStrictEqual(unwrapToolResult(split, plain).value, { a: 1 });
});

Deno.test("`unwrapToolResult()` keeps media, resources and unknown blocks whole", () => {
  const content = [
    { type: "text", text: "see:" },
    { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
    { type: "audio", data: "AAAA", mimeType: "audio/wav" },
    { type: "resource", resource: { uri: "file:///a", text: "hi" } },
    { type: "resource_link", uri: "file:///b", name: "b" },
    { type: "hologram", payload: 1 },
  ];
  const { value } = unwrapToolResult({ content }, plain);
  assert.deepStrictEqual(value, content);
});

Deno.test("`unwrapToolResult()` gives an empty string for an empty content array", () => {
  assert.deepStrictEqual(unwrapToolResult({ content: [] }, plain).value, "");
});
