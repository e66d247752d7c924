/**
 * The gateway's end of a runner's channel: a unix socket of its own, in the runner's private
 * directory, that lives only until the runner has proved itself with its one-time token. Then
 * the listener is closed and the socket file removed, before any script code is loaded, so no
 * script can delete, listen on or flood a socket another run depends on (issue 9, items 2–3).
 * Connections that do not identify themselves are bounded in number, bytes and time (SEC-07).
 * @module
 */

import {
  type GatewayToRunner,
  MAX_CHANNEL_LINE_BYTES,
  type RunnerToGateway,
} from "../protocol/channel_messages.ts";
import { timingSafeEqualText } from "../protocol/timing_safe_equal.ts";
import { writeAll } from "../protocol/bytes.ts";
import { ChunkDecoder } from "../protocol/chunk_decoder.ts";
import { LineBuffer } from "../protocol/line_buffer.ts";

/** An identified runner connection, handed to the run that owns its token. */
export interface RunnerConnection {
  send(message: GatewayToRunner): void;
  /** Installs the message handler; messages that arrived before are delivered first. */
  onMessage(handler: (message: RunnerToGateway) => void): void;
  /**
   * Resolves once every message of the run is in: the runner's `end` line came (lines after it
   * are dropped) or its side closed.
   */
  closed: Promise<void>;
  close(): void;
}

/** Limits on connections that have not presented the token yet. */
export interface ChannelLimits {
  /** Unidentified connections held at once; more are closed on accept. @default {4} */
  maxPending: number;
  /** Bytes accepted before the hello line. @default {4096} */
  maxHelloBytes: number;
  /** Time a connection has to say hello. @default {10000} */
  helloTimeoutMs: number;
  /**
   * Largest message an identified runner may send. A run's own message is bounded again by
   * what the run may send back (result, attachments), so this is a backstop.
   * @default {MAX_CHANNEL_LINE_BYTES}
   */
  maxMessageBytes: number;
}

const DEFAULT_LIMITS: ChannelLimits = {
  maxPending: 4,
  maxHelloBytes: 4096,
  helloTimeoutMs: 10_000,
  maxMessageBytes: MAX_CHANNEL_LINE_BYTES,
};

/** A listener waiting for one runner. */
export interface ChannelExpectation {
  /** Resolves with the identified runner's connection. */
  connection: Promise<RunnerConnection>;
  /** Stops listening and removes the socket file (idempotent). */
  cancel(): void;
}

/** Opens per-runner channels. Holds no state but its limits and its log. */
export class RunChannelServer {
  readonly #log: (message: string) => void;
  readonly #limits: ChannelLimits;

  readonly #stringify: (message: GatewayToRunner) => string;

  constructor(
    options: {
      log?: (message: string) => void;
      limits?: Partial<ChannelLimits>;
      /** Serialises every message sent to a runner (masking the config's secrets). */
      stringify?: (message: GatewayToRunner) => string;
    } = {},
  ) {
    this.#log = options.log ?? (() => {});
    this.#limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.#stringify = options.stringify ?? ((message) => JSON.stringify(message));
  }

  /**
   * Listens at `socketPath` (in a private 0700 directory) for the runner that presents `token`.
   * The listener is closed and the file removed as soon as it has.
   */
  listen(socketPath: string, token: string): ChannelExpectation {
    const listener = Deno.listen({ transport: "unix", path: socketPath });
    Deno.chmodSync(socketPath, 0o600);
    let resolve!: (connection: RunnerConnection) => void;
    const connection = new Promise<RunnerConnection>((r) => (resolve = r));
    let open = true;
    const pending = new Set<Deno.Conn>();
    const cancel = () => {
      if (!open) return;
      open = false;
      try {
        listener.close();
      } catch {
        // closed already
      }
      try {
        Deno.removeSync(socketPath);
      } catch {
        // removed already
      }
      for (const conn of pending) closeQuietly(conn);
      pending.clear();
    };
    (async () => {
      try {
        for await (const conn of listener) {
          if (pending.size >= this.#limits.maxPending) {
            this.#log("runner channel: too many unidentified connections; closed one");
            closeQuietly(conn);
            continue;
          }
          pending.add(conn);
          this.#handshake(conn, token).then((identified) => {
            pending.delete(conn);
            if (identified === null) return;
            if (!open) {
              identified.close();
              return;
            }
            cancel();
            resolve(identified);
          });
        }
      } catch (error) {
        // EMFILE and friends end this runner's listener only; the run reports Crashed.
        if (open) this.#log(`runner channel stopped accepting: ${error}`);
      }
    })();
    return { connection, cancel };
  }

  /** Reads the hello; resolves with the connection when it carries `token`, else null. */
  async #handshake(conn: Deno.Conn, token: string): Promise<RunnerConnection | null> {
    const reader = new LineReader(conn, this.#limits.maxHelloBytes);
    const timer = setTimeout(() => closeQuietly(conn), this.#limits.helloTimeoutMs);
    let hello: RunnerToGateway | null = null;
    try {
      const line = await reader.nextLine();
      if (line !== null) hello = parseMessage(line);
    } catch {
      hello = null;
    } finally {
      clearTimeout(timer);
    }
    if (hello === null || hello.t !== "hello" || !timingSafeEqualText(token, hello.token)) {
      this.#log("runner channel: refused a connection with an unknown or used token");
      await writeText(conn, JSON.stringify({ t: "refused", message: "unknown run token" }) + "\n")
        .catch(() => undefined);
      closeQuietly(conn);
      return null;
    }
    reader.limit = this.#limits.maxMessageBytes;
    return identifiedConnection(conn, reader, { log: this.#log, stringify: this.#stringify });
  }
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // closed by the peer already
  }
}

const ENCODER = new TextEncoder();

function writeText(conn: Deno.Conn, text: string): Promise<void> {
  return writeAll(conn, ENCODER.encode(text));
}

function parseMessage(line: string): RunnerToGateway | null {
  try {
    const value = JSON.parse(line) as unknown;
    return typeof value === "object" && value !== null && "t" in value
      ? value as RunnerToGateway
      : null;
  } catch {
    return null;
  }
}

/** Thrown by {@linkcode LineReader} when a line is longer than its limit. */
class LineTooLong extends Error {}

/** Newline-delimited reading with a cap on the bytes one line may hold. */
class LineReader {
  readonly #conn: Deno.Conn;
  readonly #decoder = new ChunkDecoder();
  readonly #buf = new Uint8Array(64 * 1024);
  #buffered = "";
  limit: number;

  constructor(conn: Deno.Conn, limit: number) {
    this.#conn = conn;
    this.limit = limit;
  }

  /** The next line, or null at the end of the stream. */
  async nextLine(): Promise<string | null> {
    for (;;) {
      const newline = this.#buffered.indexOf("\n");
      if (newline >= 0) {
        const line = this.#buffered.slice(0, newline);
        this.#buffered = this.#buffered.slice(newline + 1);
        if (line.trim() !== "") return line;
        continue;
      }
      if (this.#buffered.length > this.limit) throw new LineTooLong();
      const n = await this.#conn.read(this.#buf);
      if (n === null) return null;
      this.#buffered += this.#decoder.decode(this.#buf.subarray(0, n));
    }
  }

  /**
   * Hands every further line to `onLine` until the stream ends (a rejection when a line is
   * longer than the limit). A chunk is split where it stands, with no promise per line: an
   * identified runner's calls arrive here (issue 12); a line longer than a chunk is joined
   * once, when it ends (`LineBuffer`).
   */
  async each(onLine: (line: string) => void): Promise<void> {
    const lines = new LineBuffer(onLine);
    lines.push(this.#buffered);
    this.#buffered = "";
    for (;;) {
      if (lines.pendingLength > this.limit) throw new LineTooLong();
      const n = await this.#conn.read(this.#buf);
      if (n === null) return;
      lines.push(this.#decoder.decode(this.#buf.subarray(0, n)));
    }
  }
}

function identifiedConnection(
  conn: Deno.Conn,
  reader: LineReader,
  options: { log: (message: string) => void; stringify: (message: GatewayToRunner) => string },
): RunnerConnection {
  const { log, stringify } = options;
  const queue: RunnerToGateway[] = [];
  const state: { handler: ((message: RunnerToGateway) => void) | null } = { handler: null };
  /** Lines waiting for the write in progress; null when no write is in progress. */
  let backlog: Uint8Array[] | null = null;
  let open = true;
  /** The runner's `end` line came: later lines are not part of the run. */
  let ended = false;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  const close = () => {
    if (!open) return;
    open = false;
    closeQuietly(conn);
  };
  const connection: RunnerConnection = {
    send: (message) => {
      if (!open) return;
      const bytes = ENCODER.encode(stringify(message) + "\n");
      // Written at once when the socket is idle, else after the lines before it, in order.
      if (backlog !== null) {
        backlog.push(bytes);
        return;
      }
      backlog = [];
      const queue = backlog;
      // Written by the write op itself when the socket takes the whole line (the usual reply);
      // the loop (and its promises) only when the socket takes part of it or lines queued up.
      const drain = async (rest: Uint8Array) => {
        try {
          await writeAll(conn, rest);
          for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
            await writeAll(conn, next);
          }
        } catch {
          close();
        }
        backlog = null;
      };
      conn.write(bytes).then((written) => {
        if (written === bytes.length && queue.length === 0) backlog = null;
        else drain(bytes.subarray(written));
      }, () => {
        close();
        backlog = null;
      });
    },
    onMessage: (h) => {
      state.handler = h;
      for (const m of queue.splice(0)) h(m);
    },
    closed,
    close,
  };
  (async () => {
    try {
      await reader.each((line) => {
        if (!open || ended) return;
        const message = parseMessage(line);
        if (message === null) {
          log("runner channel: dropped a line that is not a JSON message");
          return;
        }
        if (message.t === "end") {
          ended = true;
          resolveClosed();
          return;
        }
        if (state.handler) state.handler(message);
        else queue.push(message);
      });
    } catch (error) {
      if (error instanceof LineTooLong) {
        log("runner channel: a message exceeded the size limit; closing");
      }
      // otherwise the runner died or the connection was closed
    }
    close();
    resolveClosed();
  })();
  return connection;
}
