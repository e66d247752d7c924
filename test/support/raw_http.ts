/**
 * Hand-written HTTP/1.1 requests over a raw TCP socket, for the headers `fetch` will not let a
 * test set (`Host`, `Origin`) and for WebSocket upgrades whose refusal must be seen as a status.
 * @module
 */

/** What came back: the status line's code, the headers (lower-case names) and the body text. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends `request` (a complete HTTP/1.1 request text) to 127.0.0.1:`port` and reads the answer. */
export async function rawHttp(port: number, request: string): Promise<RawResponse> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(new TextEncoder().encode(request));
    const chunks: Uint8Array[] = [];
    const buffer = new Uint8Array(16 * 1024);
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const n = await conn.read(buffer);
      if (n === null) break;
      chunks.push(buffer.slice(0, n));
      const text = new TextDecoder().decode(concat(chunks));
      const head = text.indexOf("\r\n\r\n");
      if (head < 0) continue;
      // A 101 leaves the socket open; any other answer here is complete once its body is.
      if (/^HTTP\/1\.1 101/.test(text)) break;
      const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, head));
      if (length && new TextEncoder().encode(text.slice(head + 4)).length >= Number(length[1])) {
        break;
      }
    }
    return parse(new TextDecoder().decode(concat(chunks)));
  } finally {
    conn.close();
  }
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

function parse(text: string): RawResponse {
  const head = text.indexOf("\r\n\r\n");
  const lines = (head >= 0 ? text.slice(0, head) : text).split("\r\n");
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(lines[0] ?? "")?.[1] ?? "0");
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    if (colon > 0) {
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
  }
  return { status, headers, body: head >= 0 ? text.slice(head + 4) : "" };
}

/** Builds a GET request; `headers` are written as given (a null value leaves the header out). */
export function getRequest(
  path: string,
  headers: Record<string, string | null>,
): string {
  const lines = [`GET ${path} HTTP/1.1`];
  for (const [name, value] of Object.entries(headers)) {
    if (value !== null) lines.push(`${name}: ${value}`);
  }
  lines.push("Connection: close");
  return `${lines.join("\r\n")}\r\n\r\n`;
}

/** Builds a WebSocket upgrade request for `path` with the given extra headers. */
export function upgradeRequest(path: string, headers: Record<string, string | null>): string {
  return getRequest(path, {
    Upgrade: "websocket",
    "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
    "Sec-WebSocket-Version": "13",
    ...headers,
  }).replace("Connection: close", "Connection: Upgrade");
}
