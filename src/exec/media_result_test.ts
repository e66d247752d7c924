import assert from "node:assert/strict";
import type { Attachment } from "../protocol/run_document.ts";
import { moveMediaToAttachments } from "./media_result.ts";

Deno.test("`moveMediaToAttachments()` moves image and audio blocks out of a result, leaving placeholders", () => {
  const attachments: Attachment[] = [];
  const image = { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" };
  const audio = { type: "audio", data: "UklGRg==", mimeType: "audio/wav" };
  const result = moveMediaToAttachments(
    [{ type: "text", text: "a picture:" }, image, { nested: { sound: audio } }],
    attachments,
  );
  assert.deepEqual(result, [
    { type: "text", text: "a picture:" },
    "[image image/png: attachment 1]",
    { nested: { sound: "[audio audio/wav: attachment 2]" } },
  ]);
  assert.deepEqual(attachments, [image, audio]);
});

Deno.test("`moveMediaToAttachments()` leaves results without media as they are", () => {
  const attachments: Attachment[] = [];
  for (const value of [42, "x", null, { type: "image" }, [1, [2]], { a: { b: "c" } }]) {
    assert.deepEqual(moveMediaToAttachments(value, attachments), value);
  }
  assert.deepEqual(attachments, []);
});
