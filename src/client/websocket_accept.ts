/**
 * The client's part of the WebSocket opening handshake (RFC 6455 §4), by hand for the CLI's
 * fast path: the nonce's base64 and the `Sec-WebSocket-Accept` value the server must answer,
 * without `btoa` or WebCrypto, whose first use in a process costs milliseconds.
 * @module
 */

import { paddedBlocks } from "../config/hash_padding.ts";

const WEBSOCKET_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/**
 * The `Sec-WebSocket-Accept` a server must answer to `key` (RFC 6455 §4.2.2). SHA-1 by hand:
 * `crypto.subtle.digest` runs on Deno's blocking thread pool, which the fast path would start
 * for this one 60-byte digest.
 */
export function acceptFor(key: string): string {
  return base64(sha1(new TextEncoder().encode(key + WEBSOCKET_GUID)));
}

/** SHA-1 (FIPS 180-4) of a short message; only for the handshake check, never for security. */
export function sha1(message: Uint8Array): Uint8Array {
  const { view, blocks } = paddedBlocks(message);
  const h = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0];
  const w = new Uint32Array(80);
  for (let block = 0; block < blocks; block++) {
    for (let t = 0; t < 16; t++) w[t] = view.getUint32(block * 64 + t * 4);
    for (let t = 16; t < 80; t++) {
      const x = w[t - 3]! ^ w[t - 8]! ^ w[t - 14]! ^ w[t - 16]!;
      w[t] = (x << 1) | (x >>> 31);
    }
    let [a, b, c, d, e] = h as [number, number, number, number, number];
    for (let t = 0; t < 80; t++) {
      const f = t < 20
        ? ((b & c) | (~b & d)) + 0x5a827999
        : t < 40
        ? (b ^ c ^ d) + 0x6ed9eba1
        : t < 60
        ? ((b & c) | (b & d) | (c & d)) + 0x8f1bbcdc
        : (b ^ c ^ d) + 0xca62c1d6;
      const next = (((a << 5) | (a >>> 27)) + f + e + w[t]!) >>> 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = next;
    }
    h[0] = (h[0]! + a) >>> 0;
    h[1] = (h[1]! + b) >>> 0;
    h[2] = (h[2]! + c) >>> 0;
    h[3] = (h[3]! + d) >>> 0;
    h[4] = (h[4]! + e) >>> 0;
  }
  const out = new Uint8Array(20);
  const outView = new DataView(out.buffer);
  h.forEach((word, i) => outView.setUint32(i * 4, word));
  return out;
}

const BASE64_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/**
 * Standard base64 with padding, by hand: `btoa` is loaded on its first call in a process,
 * which costs the fast path about 2 ms (Deno 2.9) for two 16- and 20-byte values.
 */
export function base64(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i]!;
    const b = bytes[i + 1];
    const c = bytes[i + 2];
    const n = (a << 16) | ((b ?? 0) << 8) | (c ?? 0);
    out += BASE64_DIGITS[(n >> 18) & 63]! + BASE64_DIGITS[(n >> 12) & 63]! +
      (b === undefined ? "=" : BASE64_DIGITS[(n >> 6) & 63]!) +
      (c === undefined ? "=" : BASE64_DIGITS[n & 63]!);
  }
  return out;
}
