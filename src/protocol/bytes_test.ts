import assert from "node:assert/strict";
import { concatBytes, writeAll } from "./bytes.ts";

Deno.test("concatBytes joins parts in order and returns a lone part as it is", () => {
  const one = new Uint8Array([1, 2]);
  assert.equal(concatBytes([one]), one);
  assert.deepEqual(
    concatBytes([one, new Uint8Array(0), new Uint8Array([3])]),
    new Uint8Array([1, 2, 3]),
  );
  assert.deepEqual(concatBytes([]), new Uint8Array(0));
});

Deno.test("writeAll goes on until a writer that takes a byte at a time has every byte", async () => {
  const got: number[] = [];
  const writer = {
    write: (bytes: Uint8Array) => {
      got.push(bytes[0]!);
      return Promise.resolve(1);
    },
  };
  await writeAll(writer, new Uint8Array([5, 6, 7]));
  assert.deepEqual(got, [5, 6, 7]);
});
