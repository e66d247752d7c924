/**
 * Turns an MCP `CallToolResult` into the value a script receives.
 * @module
 */

import { type RawToolResult, ToolCallError, type ToolCallResult } from "../namespace.ts";

/** Which call the envelope answers, for messages and the JSON-parsing rule. */
export interface UnwrapOptions {
  namespace: string;
  tool: string;
  /** True when the tool declares an `outputSchema`: its text is then never JSON-parsed. */
  hasOutputSchema: boolean;
}

/**
 * Applies the unwrap rules (docs/architecture.md#tool-results), in order: `isError` throws a `ToolError` (message = the
 * text blocks joined, else "<ns>.<tool> returned isError"); `structuredContent` is the value;
 * when every block is text, the joined text (JSON-parsed when the tool has no `outputSchema` and
 * the text starts with `{` or `[` and parses; an empty content array counts as all text and gives
 * `""`); otherwise the content blocks themselves, media and unknown block types kept whole.
 *
 * @example
 * ```ts
 * import { unwrapToolResult } from "./unwrap_tool_result.ts";
 * import assert from "node:assert/strict";
 * const raw = { content: [{ type: "text", text: '{"n":1}' }] };
 * assert.deepEqual(unwrapToolResult(raw, { namespace: "x", tool: "y", hasOutputSchema: false }).value, { n: 1 });
 * ```
 */
export function unwrapToolResult(raw: RawToolResult, options: UnwrapOptions): ToolCallResult {
  const content = Array.isArray(raw.content) ? raw.content : [];
  const texts: string[] = [];
  for (const block of content) {
    if (block.type === "text" && typeof block.text === "string") texts.push(block.text);
  }
  if (raw.isError === true) {
    const message = texts.join("\n").trim() ||
      `${options.namespace}.${options.tool} returned isError`;
    throw new ToolCallError("ToolError", message, { raw });
  }
  if (raw.structuredContent !== undefined) return { value: raw.structuredContent, raw };
  if (texts.length === content.length) {
    const text = texts.length === 1 ? texts[0]! : texts.join("\n");
    return { value: options.hasOutputSchema ? text : parseJsonText(text), raw };
  }
  return { value: content, raw };
}

function parseJsonText(text: string): unknown {
  const trimmed = text.trimStart();
  if (!trimmed.startsWith("{") && !trimmed.startsWith("[")) return text;
  try {
    return JSON.parse(trimmed);
  } catch {
    return text;
  }
}
