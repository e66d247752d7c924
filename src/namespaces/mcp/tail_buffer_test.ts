import assert from "node:assert/strict";
import { TailBuffer } from "./tail_buffer.ts";

Deno.test("`TailBuffer` keeps only the newest characters when more than the capacity arrives", () => {
  const tail = new TailBuffer({ capacity: 10 });
  for (let i = 0; i < 1000; i++) tail.append(`line ${i}\n`);
  assert.deepStrictEqual(tail.text(), "\nline 999\n");
  assert.deepStrictEqual(tail.text().length, 10);
  assert.deepStrictEqual(tail.totalChars, 70 + 720 + 8100);
});

Deno.test("`TailBuffer` keeps the end of a single chunk larger than the capacity", () => {
  const tail = new TailBuffer({ capacity: 4 });
  tail.append("abc");
  tail.append("0123456789");
  assert.deepStrictEqual(tail.text(), "6789");
});

Deno.test("`TailBuffer.lastLines()` returns the last non-empty lines, cut to maxChars", () => {
  const tail = new TailBuffer();
  tail.append("one\n\ntwo  \nthree\nfour\n");
  assert.deepStrictEqual(tail.lastLines({ lines: 2 }), "three\nfour");
  assert.deepStrictEqual(tail.lastLines({ lines: 2, maxChars: 6 }), "…e\nfour");
  assert.deepStrictEqual(new TailBuffer().lastLines(), "");
});

Deno.test("`TailBuffer` stays bounded under a 20 MB flood", () => {
  const tail = new TailBuffer();
  const chunk = "x".repeat(65_000) + "\n";
  for (let i = 0; i < 320; i++) tail.append(chunk);
  assert.deepStrictEqual(tail.text().length, 65_536);
});
