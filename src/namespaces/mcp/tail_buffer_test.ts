import { assertEquals } from "node:assert/strict";
import { TailBuffer } from "./tail_buffer.ts";

Deno.test("`TailBuffer` keeps only the newest characters when more than the capacity arrives", () => {
  const tail = new TailBuffer({ capacity: 10 });
  for (let i = 0; i < 1000; i++) tail.append(`line ${i}\n`);
  assertEquals(tail.text(), "\nline 999\n");
  assertEquals(tail.text().length, 10);
  assertEquals(tail.totalChars, 6890);
});

Deno.test("`TailBuffer` keeps the end of a single chunk larger than the capacity", () => {
  const tail = new TailBuffer({ capacity: 4 });
  tail.append("abc");
  tail.append("0123456789");
  assertEquals(tail.text(), "6789");
});

Deno.test("`TailBuffer.lastLines()` returns the last non-empty lines, cut to maxChars", () => {
  const tail = new TailBuffer();
  tail.append("one\n\ntwo  \nthree\nfour\n");
  assertEquals(tail.lastLines({ lines: 2 }), "three\nfour");
  assertEquals(tail.lastLines({ lines: 2, maxChars: 6 }), "…e\nfour");
  assertEquals(new TailBuffer().lastLines(), "");
});

Deno.test("`TailBuffer` stays bounded under a 20 MB flood", () => {
  const tail = new TailBuffer();
  const chunk = "x".repeat(65_000) + "\n";
  for (let i = 0; i < 320; i++) tail.append(chunk);
  assertEquals(tail.text().length, 65_536);
});
