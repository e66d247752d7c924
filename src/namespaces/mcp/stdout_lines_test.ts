import assert from "node:assert/strict";
import { type OversizedLine, StdoutLines } from "./stdout_lines.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function collect(max = 1000, toSdk: (line: string) => boolean = () => false) {
  const seen: string[] = [];
  const oversized: { size: number; id: string | number | null }[] = [];
  const lines = new StdoutLines(
    max,
    (bytes) => {
      const line = decoder.decode(bytes);
      seen.push(line);
      return toSdk(line);
    },
    (line: OversizedLine) => {
      oversized.push({ size: line.size, id: line.requestId() });
      return false;
    },
  );
  return { lines, seen, oversized };
}

Deno.test("`StdoutLines` joins a line split over chunks, even when a chunk's memory is reused", () => {
  const { lines, seen } = collect();
  const buffer = new Uint8Array(8);
  for (const piece of ['{"a":', '1}\n{"b"', ":2}\n"]) {
    buffer.fill(0);
    const bytes = encoder.encode(piece);
    buffer.set(bytes);
    lines.add(buffer.subarray(0, bytes.length));
  }
  assert.deepStrictEqual(seen, ['{"a":1}', '{"b":2}']);
});

Deno.test("`StdoutLines` keeps only the ends of an over-long line and goes on after it", () => {
  const { lines, seen, oversized } = collect(100);
  const head = `{"jsonrpc":"2.0","id":7,"result":{"text":"${"x".repeat(300)}`;
  const tail = `${"y".repeat(300)}"}}`;
  lines.add(encoder.encode(head));
  lines.add(encoder.encode(`${tail}\n{"ok":1}\n`));
  assert.deepStrictEqual(oversized, [{ size: head.length + tail.length, id: 7 }]);
  assert.deepStrictEqual(seen, ['{"ok":1}']);
});

Deno.test("`StdoutLines` hands the line after one the SDK took a microtask later, in order", async () => {
  const { lines, seen } = collect(1000, (line) => line.startsWith("sdk"));
  lines.add(encoder.encode("sdk1\nnext\n"));
  assert.deepStrictEqual(seen, ["sdk1"]);
  lines.add(encoder.encode("later\n"));
  assert.deepStrictEqual(seen, ["sdk1"], "a line that came after still waits its turn");
  await lines.drained();
  assert.deepStrictEqual(seen, ["sdk1", "next", "later"]);
});
