import assert from "node:assert/strict";
import { ChunkDecoder } from "./chunk_decoder.ts";

const encoder = new TextEncoder();

Deno.test("ChunkDecoder gives the text of every split of a stream, as one streaming TextDecoder", () => {
  const text = '{"t":"reply","value":"é€𝄞\uFEFF"}\n{"id":2}\nplain ascii\n€\n';
  const bytes = encoder.encode(text);
  for (let first = 0; first <= bytes.length; first++) {
    for (let second = first; second <= bytes.length; second += 3) {
      const decoder = new ChunkDecoder();
      const parts = [
        bytes.subarray(0, first),
        bytes.subarray(first, second),
        bytes.subarray(second),
      ];
      const out = parts.map((part) => decoder.decode(part)).join("") + decoder.end();
      assert.equal(out, text, `split at ${first} and ${second}`);
    }
  }
});

Deno.test("ChunkDecoder ends a stream cut inside a character with U+FFFD", () => {
  const decoder = new ChunkDecoder();
  const bytes = encoder.encode("a€");
  assert.equal(decoder.decode(bytes.subarray(0, 2)), "a");
  assert.equal(decoder.end(), "\uFFFD");
  // …and starts afresh after it.
  assert.equal(decoder.decode(encoder.encode("b\n")), "b\n");
});
