import assert from "node:assert/strict";
import { LineBuffer } from "./line_buffer.ts";

Deno.test("LineBuffer.push() hands out each line once it ends, across any chunking", () => {
  const text = '{"a":1}\n\n{"b":"two words"}\r\n{"c":[1,2,3]}\n';
  for (const size of [1, 2, 3, 5, 8, 13, text.length]) {
    const lines: string[] = [];
    const buffer = new LineBuffer((line) => lines.push(line));
    for (let at = 0; at < text.length; at += size) buffer.push(text.slice(at, at + size));
    assert.deepEqual(
      lines,
      ['{"a":1}', '{"b":"two words"}\r', '{"c":[1,2,3]}'],
      `chunks of ${size}`,
    );
    assert.equal(buffer.pendingLength, 0);
  }
});

Deno.test("LineBuffer.pendingLength counts the line not ended yet, however many chunks it spans", () => {
  const lines: string[] = [];
  const buffer = new LineBuffer((line) => lines.push(line));
  const chunk = "x".repeat(1000);
  for (let i = 0; i < 50; i++) buffer.push(chunk);
  assert.equal(buffer.pendingLength, 50_000);
  assert.equal(lines.length, 0);
  buffer.push("y\nz");
  const [line, ...more] = lines;
  assert.equal(more.length, 0);
  assert.equal(line?.length, 50_001);
  assert.ok(line?.endsWith("xy"));
  assert.equal(buffer.pendingLength, 1);
});
