/**
 * The gateway's TCP port, accepted here rather than by `Deno.serve`, which has no header-read
 * timeout and no cap on connections: any local user could open thousands of connections that
 * never finish their headers and hold the server's descriptors for as long as they liked. This
 * front reads each connection's first request head itself, within
 * {@linkcode HEADER_TIMEOUT_MS}, and decides what the connection is:
 *
 * - one whose first request carries a credential (the token, or a dashboard session) is handed
 *   to the HTTP server behind (on a private unix socket) and then only piped, for as long as
 *   both ends like — keep-alive, WebSockets and `/mcp` streams work as they would directly;
 * - any other is an unauthenticated connection: it gets that one request (its head is rewritten
 *   to `Connection: close`, so the server closes it once answered: `/health`, a 401, the sign-in
 *   page), it must be done within {@linkcode UNAUTHENTICATED_LIFETIME_MS}, and only so many are
 *   open at once ({@linkcode unauthenticatedCap}) — a new one beyond that closes the oldest, so
 *   a flood sheds itself while a real client's quick request still gets through.
 *
 * The server behind still checks Host, Origin and the token on every request: the front only
 * decides how long a connection may live and how many may wait.
 * @module
 */

import { concatBytes, writeAll } from "../protocol/bytes.ts";

/** How long a connection may take to send its first request's head. */
export const HEADER_TIMEOUT_MS = 10_000;

/** How long a connection without a credential may stay open in all. */
export const UNAUTHENTICATED_LIFETIME_MS = 30_000;

/**
 * How many connections without a credential may be open at once: a quarter of the process's
 * descriptor limit (the rest stays for the server's own files, children and credentialed
 * clients), between 16 and 1024 (each waiting connection holds a read buffer).
 */
export function unauthenticatedCap(): number {
  let soft = 1024;
  if (Deno.build.os === "linux") {
    try {
      const limits = Deno.readTextFileSync("/proc/self/limits");
      const match = /^Max open files\s+(\d+|unlimited)/m.exec(limits);
      if (match && match[1] !== "unlimited") soft = Number(match[1]);
      else if (match) soft = Infinity;
    } catch {
      // no /proc: the common default stands
    }
  }
  return Math.max(16, Math.min(1024, Math.floor(soft / 4)));
}

/** Largest request head accepted (431 beyond). */
const MAX_HEAD_BYTES = 64 * 1024;

/** Longest pause between attempts to accept again after a failure (descriptors exhausted). */
const MAX_BACKOFF_MS = 5000;

/** A request's first line and headers, as the front read them. */
export interface RequestHead {
  method: string;
  /** The request target (path and query). */
  target: string;
  headers: Headers;
}

/** The listening front. */
export interface TcpFront {
  readonly addr: Deno.NetAddr;
  /** Stops accepting; connections already handed on are closed by {@linkcode closeAll}. */
  shutdown(): void;
  /** Closes every connection still open (after the server behind has finished its answers). */
  closeAll(): void;
}

/** Options of {@linkcode listenFront}. */
export interface TcpFrontOptions {
  hostname: string;
  port: number;
  /** The unix socket of the HTTP server the front hands connections to. */
  target: string;
  /** Whether a request head carries a credential the server will accept. */
  authenticated(head: RequestHead): boolean;
  log(message: string, fields?: Record<string, unknown>): void;
  /** Overrides, for tests. */
  limits?: { headerTimeoutMs?: number; lifetimeMs?: number; maxUnauthenticated?: number };
}

/** Listens on `hostname:port`; throws only when it cannot (the port is taken, …). */
export function listenFront(options: TcpFrontOptions): TcpFront {
  const listener = Deno.listen({ hostname: options.hostname, port: options.port });
  const headerTimeoutMs = options.limits?.headerTimeoutMs ?? HEADER_TIMEOUT_MS;
  const lifetimeMs = options.limits?.lifetimeMs ?? UNAUTHENTICATED_LIFETIME_MS;
  const maxUnauthenticated = options.limits?.maxUnauthenticated ?? unauthenticatedCap();
  /** Open connections without a credential, oldest first, each with its closer. */
  const unauthenticated = new Map<Deno.Conn, () => void>();
  const open = new Set<Deno.Conn>();
  let stopped = false;

  const serve = async (conn: Deno.Conn) => {
    let upstream: Deno.Conn | null = null;
    const close = () => {
      unauthenticated.delete(conn);
      open.delete(conn);
      for (const c of [conn, upstream]) {
        try {
          c?.close();
        } catch {
          // closed already
        }
      }
    };
    open.add(conn);
    if (unauthenticated.size >= maxUnauthenticated) {
      // The oldest waiting connection makes room: a flood ends its own connections first.
      const [, closeOldest] = unauthenticated.entries().next().value!;
      closeOldest();
    }
    unauthenticated.set(conn, close);
    const lifetime = setTimeout(close, lifetimeMs);
    const headDeadline = setTimeout(close, headerTimeoutMs);
    try {
      const read = await readHead(conn);
      clearTimeout(headDeadline);
      if (read === null) return close();
      if ("refusal" in read) {
        await writeAll(conn, new TextEncoder().encode(read.refusal)).catch(() => undefined);
        return close();
      }
      const credentialed = options.authenticated(read.head);
      if (credentialed) {
        clearTimeout(lifetime);
        unauthenticated.delete(conn);
      }
      upstream = await Deno.connect({ transport: "unix", path: options.target });
      if (!open.has(conn)) return close(); // closed while connecting
      const head = credentialed ? read.headBytes : closingHead(read.headText);
      await writeAll(upstream, concatBytes([head, read.rest]));
      const up = upstream;
      // The client's end closing is passed on; the server's end closing ends the connection.
      pipe(conn, up).then(() => up.closeWrite()).catch(() => undefined);
      await pipe(up, conn);
    } catch {
      // a reset or a closed end: the connection is over either way
    } finally {
      clearTimeout(headDeadline);
      clearTimeout(lifetime);
      close();
    }
  };

  (async () => {
    let backoffMs = 50;
    while (!stopped) {
      let conn: Deno.Conn;
      try {
        conn = await listener.accept();
        backoffMs = 50;
      } catch (error) {
        if (stopped || error instanceof Deno.errors.BadResource) return;
        // Out of descriptors (EMFILE) and the like: wait, then accept again.
        options.log("the HTTP listener failed; accepting again", {
          error: String(error),
          retryInMs: backoffMs,
        });
        await new Promise((r) => setTimeout(r, backoffMs));
        backoffMs = Math.min(backoffMs * 2, MAX_BACKOFF_MS);
        continue;
      }
      serve(conn);
    }
  })();

  return {
    addr: listener.addr as Deno.NetAddr,
    shutdown: () => {
      stopped = true;
      try {
        listener.close();
      } catch {
        // closed already
      }
    },
    closeAll: () => {
      for (const conn of [...open]) {
        try {
          conn.close();
        } catch {
          // closed already
        }
      }
      open.clear();
      unauthenticated.clear();
    },
  };
}

/**
 * Copies `from` to `to` until `from` ends. Reads start small — an idle connection (a dashboard's
 * WebSocket) holds its buffer while it waits — and grow once a read fills the buffer.
 */
async function pipe(from: Deno.Conn, to: Deno.Conn): Promise<void> {
  let buffer = new Uint8Array(2048);
  for (;;) {
    const n = await from.read(buffer);
    if (n === null) return;
    await writeAll(to, buffer.subarray(0, n));
    if (n === buffer.length && buffer.length < 64 * 1024) buffer = new Uint8Array(64 * 1024);
  }
}

type ReadHead =
  | { head: RequestHead; headText: string; headBytes: Uint8Array; rest: Uint8Array }
  | { refusal: string };

function refusal(status: string): { refusal: string } {
  return { refusal: `HTTP/1.1 ${status}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n` };
}

/** Reads the first request head; null when the connection ends first. */
async function readHead(conn: Deno.Conn): Promise<ReadHead | null> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  const buffer = new Uint8Array(4096);
  for (;;) {
    const n = await conn.read(buffer);
    if (n === null) return null;
    chunks.push(buffer.slice(0, n));
    length += n;
    const bytes = concatBytes(chunks);
    const end = headEnd(bytes, Math.max(0, length - n - 3));
    if (end < 0) {
      if (length > MAX_HEAD_BYTES) return refusal("431 Request Header Fields Too Large");
      chunks.splice(0, chunks.length, bytes);
      continue;
    }
    const headBytes = bytes.subarray(0, end);
    const headText = new TextDecoder().decode(headBytes);
    const head = parseHead(headText);
    if (head === null) return refusal("400 Bad Request");
    return { head, headText, headBytes, rest: bytes.subarray(end) };
  }
}

/** The index just past the head's blank line, searching from `from`; -1 when not there yet. */
function headEnd(bytes: Uint8Array, from: number): number {
  for (let i = from; i + 3 < bytes.length; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) {
      return i + 4;
    }
  }
  return -1;
}

/** The request line and headers of an HTTP/1.x head, or null when it is not one. */
function parseHead(text: string): RequestHead | null {
  const [line = "", ...fields] = text.slice(0, -4).split("\r\n");
  const match = /^([A-Z]+) (\S+) HTTP\/1\.[01]$/.exec(line);
  if (!match) return null;
  const headers = new Headers();
  for (const field of fields) {
    const colon = field.indexOf(":");
    if (colon <= 0) return null;
    try {
      headers.append(field.slice(0, colon).trim(), field.slice(colon + 1).trim());
    } catch {
      return null; // not a valid header name or value
    }
  }
  return { method: match[1]!, target: match[2]!, headers };
}

/** The head with `Connection: close` in place of its own connection headers. */
function closingHead(text: string): Uint8Array {
  const lines = text.slice(0, -4).split("\r\n").filter((line) =>
    !/^(connection|keep-alive)\s*:/i.test(line)
  );
  return new TextEncoder().encode(`${lines.join("\r\n")}\r\nConnection: close\r\n\r\n`);
}
