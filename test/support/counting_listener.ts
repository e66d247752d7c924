/**
 * A loopback TCP listener that counts the connections it accepts (answering each with a tiny
 * HTTP response): the witness that a sandboxed script never reached the network.
 * @module
 */

/** A running listener; close it when done. */
export interface CountingListener {
  port: number;
  /** Connections accepted so far. */
  connections(): number;
  close(): void;
}

/** Starts a listener on 127.0.0.1 with a free port. */
export function startCountingListener(): CountingListener {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let count = 0;
  (async () => {
    try {
      for await (const conn of listener) {
        count++;
        const body = "export const x = 1;\n";
        conn.write(
          new TextEncoder().encode(
            `HTTP/1.1 200 OK\r\ncontent-type: application/javascript\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
          ),
        ).catch(() => undefined).finally(() => {
          try {
            conn.close();
          } catch {
            // already closed by the peer
          }
        });
      }
    } catch {
      // listener closed
    }
  })();
  return {
    port: (listener.addr as Deno.NetAddr).port,
    connections: () => count,
    close: () => listener.close(),
  };
}
