/**
 * The read loop of the bench's floor processes: newline-delimited JSON messages off a socket,
 * each handled in order. One loop for the relay (which imports it into a child process of its
 * own) and for the serving end, so both floors are taken with the same code.
 * @module
 */

/**
 * Hands each JSON message read from `conn` to `handle`, awaiting it before the next, until the
 * stream ends or a read fails (the other side went away).
 */
export async function forEachJsonLine(
  conn: Deno.Conn,
  handle: (message: unknown) => Promise<void> | void,
): Promise<void> {
  const buf = new Uint8Array(65536);
  const dec = new TextDecoder();
  let pending = "";
  for (;;) {
    const n = await conn.read(buf).catch(() => null);
    if (n === null) return;
    pending += dec.decode(buf.subarray(0, n), { stream: true });
    let at = pending.indexOf("\n");
    while (at >= 0) {
      const message: unknown = JSON.parse(pending.slice(0, at));
      pending = pending.slice(at + 1);
      await handle(message);
      at = pending.indexOf("\n");
    }
  }
}
