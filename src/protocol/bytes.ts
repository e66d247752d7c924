/**
 * The two byte chores every hand-written transport of the gateway needs — joining chunks and
 * writing a buffer to the end over a connection that may take it in parts — written once for
 * the runner, its channel, the CLI's lean client and the stdio upstream transport (Deno has no
 * `writeAll` without `@std/io`, which is not on npm).
 * @module
 */

/** One array holding `parts` in order; a single part comes back as it is (no copy). */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1 && parts[0] !== undefined) return parts[0];
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Writes all of `bytes`: a socket write may take only part of them. */
export async function writeAll(
  writer: { write(bytes: Uint8Array): Promise<number> },
  bytes: Uint8Array,
): Promise<void> {
  for (let at = 0; at < bytes.length;) at += await writer.write(bytes.subarray(at));
}
