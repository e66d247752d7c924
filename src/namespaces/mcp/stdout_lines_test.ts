import assert from "node:assert/strict";
import { type OversizedLine, StdoutLines } from "./stdout_lines.ts";

const encoder = new TextEncoder();

function collect(max = 1000, toSdk: (line: string) => boolean = () => false) {
  const seen: string[] = [];
  const oversized: { length: number; id: string | number | null }[] = [];
  const lines = new StdoutLines(
    max,
    (line) => {
      seen.push(line);
      return toSdk(line);
    },
    (line: OversizedLine) => {
      oversized.push({ length: line.length, id: line.requestId() });
      return false;
    },
  );
  return { lines, seen, oversized };
}

Deno.test("`StdoutLines` keeps only the ends of an over-long line, in turn with the lines around it", () => {
  const { lines, seen, oversized } = collect(100);
  const head = `{"jsonrpc":"2.0","id":7,"result":{"text":"${"x".repeat(300)}`;
  const tail = `${"y".repeat(300)}"}}`;
  lines.add(encoder.encode(`{"ok":0}\n${head}`));
  lines.add(encoder.encode(`${tail}\n{"ok":1}\n`));
  assert.deepStrictEqual(oversized, [{ length: head.length + tail.length, id: 7 }]);
  assert.deepStrictEqual(seen, ['{"ok":0}', '{"ok":1}']);
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
