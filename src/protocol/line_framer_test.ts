import assert from "node:assert/strict";
import { LineFramer, type OversizedLine } from "./line_framer.ts";

const encoder = new TextEncoder();

Deno.test("LineFramer hands out each line once it ends, across any chunking", () => {
  const text = '{"a":1}\n\n{"b":"two words"}\r\n{"c":[1,2,3]}\n';
  for (const size of [1, 2, 3, 5, 8, 13, text.length]) {
    const lines: string[] = [];
    const framer = new LineFramer((line) => lines.push(line));
    for (let at = 0; at < text.length; at += size) framer.pushText(text.slice(at, at + size));
    assert.deepEqual(lines, ['{"a":1}', '{"b":"two words"}', '{"c":[1,2,3]}'], `chunks of ${size}`);
    assert.equal(framer.pendingLength, 0);
  }
});

Deno.test("LineFramer decodes UTF-8 split between chunks, and a chunk's memory may be reused", () => {
  const lines: string[] = [];
  const framer = new LineFramer((line) => lines.push(line));
  const bytes = encoder.encode("é€😀\nnext\n");
  const buffer = new Uint8Array(3);
  for (let at = 0; at < bytes.length; at += 3) {
    const piece = bytes.subarray(at, at + 3);
    buffer.fill(0);
    buffer.set(piece);
    framer.push(buffer.subarray(0, piece.length));
  }
  assert.deepEqual(lines, ["é€😀", "next"]);
});

Deno.test("LineFramer.pendingLength counts the line not ended yet, however many chunks it spans", () => {
  const lines: string[] = [];
  const framer = new LineFramer((line) => lines.push(line));
  const chunk = "x".repeat(1000);
  for (let i = 0; i < 50; i++) framer.pushText(chunk);
  assert.equal(framer.pendingLength, 50_000);
  assert.equal(lines.length, 0);
  framer.pushText("y\nz");
  assert.deepEqual(lines.map((line) => line.length), [50_001]);
  assert.ok(lines[0]?.endsWith("xy"));
  assert.equal(framer.pendingLength, 1);
});

Deno.test("LineFramer keeps only the ends of a line over its limit and goes on after it", () => {
  const lines: string[] = [];
  const oversized: { length: number; id: string | number | null }[] = [];
  const framer = new LineFramer((line) => lines.push(line), {
    maxLineLength: 100,
    onOversized: (line: OversizedLine) =>
      oversized.push({ length: line.length, id: line.requestId() }),
  });
  const head = `{"jsonrpc":"2.0","id":7,"result":{"text":"${"x".repeat(3000)}`;
  const tail = `${"y".repeat(3000)}"}}`;
  framer.pushText(head);
  assert.equal(framer.dropping, true);
  framer.pushText(`${tail}\n{"ok":1}\n`);
  assert.deepEqual(oversized, [{ length: head.length + tail.length, id: 7 }]);
  assert.deepEqual(lines, ['{"ok":1}']);
  // One chunk holding a whole over-long line, with the id at its end (as the SDK writes).
  const whole = `{"result":"${"z".repeat(200)}","id":"gw-3"}`;
  framer.pushText(`${whole}\n`);
  assert.deepEqual(oversized.at(-1), { length: whole.length, id: "gw-3" });
});

Deno.test("OversizedLine.requestId() never takes an id inside the payload for the message's", () => {
  const framer = new LineFramer(() => {}, {
    maxLineLength: 10,
    onOversized: (line) => ids.push(line.requestId()),
  });
  const ids: (string | number | null)[] = [];
  framer.pushText(`{"result":{"id":5,"text":"${"a".repeat(2000)}"}}\n`);
  assert.deepEqual(ids, [null]);
});

Deno.test("LineFramer.end() hands over a last line that has no newline", () => {
  const lines: string[] = [];
  const framer = new LineFramer((line) => lines.push(line));
  framer.push(encoder.encode('{"a":1}\n{"last":'));
  framer.push(encoder.encode("2}"));
  framer.end();
  assert.deepEqual(lines, ['{"a":1}', '{"last":2}']);
});
