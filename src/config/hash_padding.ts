/**
 * The message padding SHA-1 and SHA-256 share (FIPS 180-4 §5.1.1), for the two digests this
 * project computes by hand on the CLI's start path (`sha256_hex.ts`, the WebSocket handshake's
 * SHA-1): one copy of the length arithmetic both must get right.
 * @module
 */

/** `message` padded to whole 64-byte blocks: a 1 bit, zeros, then its bit length (64 bits). */
export function paddedBlocks(message: Uint8Array): { view: DataView; blocks: number } {
  const blocks = Math.ceil((message.length + 9) / 64);
  const padded = new Uint8Array(blocks * 64);
  padded.set(message);
  padded[message.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(message.length / 0x20000000));
  view.setUint32(padded.length - 4, (message.length * 8) >>> 0);
  return { view, blocks };
}
