import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { sha256Hex } from "./sha256_hex.ts";

Deno.test("sha256Hex() matches node:crypto across block boundaries and for non-ASCII paths", () => {
  const texts = [
    "",
    "abc",
    "/home/ana/projects/my app/.gateway",
    "/tmp/ünïcödé/路径/🙂",
    ...Array.from({ length: 200 }, (_, n) => "x/".repeat(n).slice(0, n)),
  ];
  for (const text of texts) {
    assert.equal(sha256Hex(text), createHash("sha256").update(text).digest("hex"), text);
  }
  // FIPS 180-4's example.
  assert.equal(
    sha256Hex("abc"),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
});
