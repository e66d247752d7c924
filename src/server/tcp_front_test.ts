import assert from "node:assert/strict";
import { join } from "node:path";
import { listenFront, type TcpFrontOptions } from "./tcp_front.ts";

/** A front on a free port over a server on a unix socket that answers with the path. */
async function withFront(
  limits: TcpFrontOptions["limits"],
  fn: (port: number, seen: string[]) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "tcp-front-" });
  const target = join(dir, "http.sock");
  const seen: string[] = [];
  const server = Deno.serve({ path: target, onListen: () => {} }, (request) => {
    seen.push(`${new URL(request.url).pathname} ${request.headers.get("connection") ?? "-"}`);
    return new Response("ok");
  });
  const front = listenFront({
    hostname: "127.0.0.1",
    port: 0,
    target,
    authenticated: (head) => head.headers.get("authorization") === "Bearer good",
    log: () => {},
    ...(limits ? { limits } : {}),
  });
  try {
    await fn(front.addr.port, seen);
  } finally {
    front.shutdown();
    await server.shutdown();
    front.closeAll();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Reads until the connection closes (true) or `ms` pass with it open (false). */
async function closedWithin(conn: Deno.Conn, ms: number): Promise<boolean> {
  const buffer = new Uint8Array(4096);
  const deadline = AbortSignal.timeout(ms);
  const timedOut = new Promise<false>((resolve) =>
    deadline.addEventListener("abort", () => resolve(false), { once: true })
  );
  const drained = (async () => {
    try {
      while ((await conn.read(buffer)) !== null) { /* the answer */ }
    } catch {
      // reset: closed too
    }
    return true;
  })();
  return await Promise.race([drained, timedOut]);
}

const encoder = new TextEncoder();
const request = (path: string, extra = "") =>
  encoder.encode(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${extra}\r\n`);

Deno.test("listenFront(): a credentialed connection is piped as it is and stays open for more requests", async () => {
  await withFront(undefined, async (port, seen) => {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    const buffer = new Uint8Array(4096);
    for (const path of ["/a", "/b"]) {
      await conn.write(request(path, "Authorization: Bearer good\r\n"));
      const n = await conn.read(buffer);
      assert.match(new TextDecoder().decode(buffer.subarray(0, n ?? 0)), /^HTTP\/1\.1 200/);
    }
    conn.close();
    assert.deepEqual(seen, ["/a -", "/b -"]);
  });
});

Deno.test("listenFront(): a connection without a credential gets one request, answered, then closed", async () => {
  await withFront(undefined, async (port, seen) => {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    await conn.write(request("/health", "Connection: keep-alive\r\n"));
    assert.equal(await closedWithin(conn, 5000), true);
    conn.close();
    assert.deepEqual(seen, ["/health close"]);
  });
});

Deno.test("listenFront(): an unfinished head is closed at its deadline", async () => {
  await withFront({ headerTimeoutMs: 200 }, async (port) => {
    const slow = await Deno.connect({ hostname: "127.0.0.1", port });
    await slow.write(encoder.encode("GET /health HTTP/1.1\r\nHost: 12"));
    assert.equal(await closedWithin(slow, 10_000), true);
    slow.close();
  });
});

Deno.test("listenFront(): past the cap, the oldest waiting connection makes room and the newer ones are served", async () => {
  await withFront({ maxUnauthenticated: 2 }, async (port, seen) => {
    const waiting: Deno.Conn[] = [];
    for (let i = 0; i < 3; i++) {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      await conn.write(encoder.encode("GET /h"));
      waiting.push(conn);
    }
    assert.equal(await closedWithin(waiting[0]!, 10_000), true, "the oldest made room");
    for (const conn of waiting.slice(1)) {
      await conn.write(encoder.encode(" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
      const buffer = new Uint8Array(4096);
      const n = await conn.read(buffer);
      assert.match(new TextDecoder().decode(buffer.subarray(0, n ?? 0)), /^HTTP\/1\.1 200/);
    }
    for (const conn of waiting) conn.close();
    assert.deepEqual(seen, ["/h close", "/h close"]);
  });
});

Deno.test("listenFront(): a head that is not HTTP/1 gets 400, one too large 431", async () => {
  await withFront(undefined, async (port) => {
    for (
      const [bytes, status] of [
        [encoder.encode("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"), "400"],
        [encoder.encode(`GET / HTTP/1.1\r\nX: ${"a".repeat(70_000)}`), "431"],
      ] as const
    ) {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      await conn.write(bytes).catch(() => undefined);
      const buffer = new Uint8Array(4096);
      const n = await conn.read(buffer).catch(() => null);
      assert.match(
        new TextDecoder().decode(buffer.subarray(0, n ?? 0)),
        new RegExp(`^HTTP/1\\.1 ${status}`),
      );
      conn.close();
    }
  });
});
