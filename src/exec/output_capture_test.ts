import assert from "node:assert/strict";
import { OutputCapture } from "./output_capture.ts";

const MARKER = "\u0000gateway-run-end:0123abcd:";
const bytes = (text: string) => new TextEncoder().encode(text);

/** Feeds `text` to a capture in chunks of `size` bytes, then ends the stream. */
async function captured(text: string, size: number, cap = 1024) {
  const all = bytes(text);
  const stream = new ReadableStream<Uint8Array>({
    type: "bytes",
    start(controller) {
      for (let at = 0; at < all.length; at += size) {
        controller.enqueue(all.slice(at, at + size));
      }
      controller.close();
    },
  });
  const capture = new OutputCapture(cap, { endMarker: MARKER });
  await capture.drain(stream);
  return { text: capture.text(), total: capture.totalBytes, code: await capture.ended };
}

Deno.test("the end marker ends the output, wherever the chunks split it", async () => {
  const text = `hello\nno newline at the end${MARKER}3\nwritten by an unload listener\n`;
  for (const size of [1, 2, 7, 16, 31, text.length]) {
    const out = await captured(text, size);
    assert.equal(out.text, "hello\nno newline at the end", `chunks of ${size}`);
    assert.equal(out.total, bytes("hello\nno newline at the end").length, `chunks of ${size}`);
    assert.equal(out.code, 3, `chunks of ${size}`);
  }
});

Deno.test("output that only looks like the marker stays output, and ended is null at EOF", async () => {
  const lookalikes = [
    "\u0000gateway-run-end:",
    `\u0000gateway-run-end:ffffffff:0\n`,
    `${MARKER}not a code\n`,
    `${MARKER}`,
    `${MARKER}12`,
    "\u0000\u0000\u0000 binary",
  ];
  for (const text of lookalikes) {
    for (const size of [1, 5, text.length]) {
      const out = await captured(`a${text}b`, size);
      assert.equal(out.text, `a${text}b`, JSON.stringify(text));
      assert.equal(out.code, null, JSON.stringify(text));
    }
  }
});

Deno.test("a marker after the cap still ends the stream; bytes past the cap are counted", async () => {
  const flood = "x".repeat(5000);
  const out = await captured(`${flood}${MARKER}0\n`, 4096, 100);
  assert.equal(out.text, "x".repeat(100));
  assert.equal(out.total, 5000);
  assert.equal(out.code, 0);
});

Deno.test("a capture without an end marker keeps everything and ends with null", async () => {
  const capture = new OutputCapture(1024);
  capture.push(bytes(`a${MARKER}0\nb`));
  assert.equal(capture.text(), `a${MARKER}0\nb`);
  await capture.drain(new ReadableStream({ type: "bytes", start: (c) => c.close() }));
  assert.equal(await capture.ended, null);
});

Deno.test("drain() reads a large output whole past its small first buffer, in bigger reads", async () => {
  const text = "x".repeat(300 * 1024) + `${MARKER}0\n`;
  const sizes: number[] = [];
  const all = bytes(text);
  let at = 0;
  const stream = new ReadableStream({
    type: "bytes",
    pull(controller: ReadableByteStreamController) {
      const request = controller.byobRequest!;
      const view = request.view as Uint8Array;
      sizes.push(view.byteLength);
      if (at >= all.length) {
        controller.close();
        request.respond(0);
        return;
      }
      const n = Math.min(view.byteLength, all.length - at);
      view.set(all.subarray(at, at + n));
      at += n;
      request.respond(n);
    },
  });
  const capture = new OutputCapture(1024 * 1024, { endMarker: MARKER });
  await capture.drain(stream);
  assert.equal(capture.text(), "x".repeat(300 * 1024));
  assert.equal(await capture.ended, 0);
  assert.equal(sizes[0], 4 * 1024, "the first read offers a small buffer");
  assert.equal(sizes[1], 64 * 1024, "a filled buffer is replaced by a 64 KiB one");
  assert.ok(sizes.length < 10, `300 KiB in ${sizes.length} reads`);
});
