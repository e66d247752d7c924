import assert from "node:assert/strict";
import { acceptFor, base64, sha1 } from "./websocket_accept.ts";

Deno.test("base64: matches btoa for every length and byte value", () => {
  for (let length = 0; length <= 40; length++) {
    const bytes = Uint8Array.from({ length }, (_, i) => (i * 97 + length * 31) & 0xff);
    assert.equal(base64(bytes), btoa(String.fromCharCode(...bytes)), `length ${length}`);
  }
  const all = Uint8Array.from({ length: 256 }, (_, i) => i);
  assert.equal(base64(all), btoa(String.fromCharCode(...all)));
});

Deno.test("sha1: matches WebCrypto across block boundaries, and the RFC 6455 example", async () => {
  for (const length of [0, 1, 3, 55, 56, 60, 63, 64, 65, 119, 120, 200]) {
    const bytes = Uint8Array.from({ length }, (_, i) => (i * 131 + 7) & 0xff);
    const expected = new Uint8Array(await crypto.subtle.digest("SHA-1", bytes));
    assert.deepEqual(sha1(bytes), expected, `length ${length}`);
  }
  // RFC 6455 §1.3: the key "dGhlIHNhbXBsZSBub25jZQ==" is answered "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=".
  assert.equal(acceptFor("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
});
