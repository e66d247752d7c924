/**
 * Images and audio a script leaves in its `result` go to the caller as attachments (real
 * content blocks over MCP), with a short placeholder in their place, instead of kilobytes of
 * base64 inside the JSON.
 * @module
 */

import type { Attachment } from "../protocol/run_document.ts";

/** How deep into arrays and objects media blocks are looked for. */
const MAX_DEPTH = 4;

function isMediaBlock(value: unknown): value is Attachment & { type: "image" | "audio" } {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const block = value as Record<string, unknown>;
  return (block.type === "image" || block.type === "audio") &&
    typeof block.data === "string" && typeof block.mimeType === "string";
}

/**
 * Returns `result` with every image or audio content block (at the top or inside arrays and
 * plain objects) replaced by a placeholder such as `"[image image/png: attachment 1]"`, and
 * the blocks appended to `attachments`. Anything else is returned unchanged.
 *
 * @example
 * ```ts
 * import { moveMediaToAttachments } from "./media_result.ts";
 * import type { Attachment } from "../protocol/run_document.ts";
 * import assert from "node:assert/strict";
 * const attachments: Attachment[] = [];
 * const image = { type: "image", data: "iVBO", mimeType: "image/png" };
 * const result = moveMediaToAttachments(["a", image], attachments);
 * assert.deepEqual(result, ["a", "[image image/png: attachment 1]"]);
 * assert.deepEqual(attachments, [image]);
 * ```
 */
export function moveMediaToAttachments(result: unknown, attachments: Attachment[]): unknown {
  const walk = (value: unknown, depth: number): unknown => {
    if (isMediaBlock(value)) {
      attachments.push({ type: value.type, data: value.data, mimeType: value.mimeType });
      return `[${value.type} ${value.mimeType}: attachment ${attachments.length}]`;
    }
    if (depth >= MAX_DEPTH || value === null || typeof value !== "object") return value;
    if (Array.isArray(value)) return value.map((item) => walk(item, depth + 1));
    if (Object.getPrototypeOf(value) !== Object.prototype) return value;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = walk(item, depth + 1);
    return out;
  };
  return walk(result, 0);
}
