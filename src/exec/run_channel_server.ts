/**
 * The gateway's end of the runner channel: one unix socket in a private directory. A runner
 * proves which run it is with a one-time token; anything else is refused and logged (SEC-07).
 * @module
 */

import {
  type GatewayToRunner,
  MAX_CHANNEL_LINE_BYTES,
  type RunnerToGateway,
} from "../protocol/channel_messages.ts";
import { timingSafeEqualText } from "../protocol/timing_safe_equal.ts";

/** An identified runner connection, handed to the run that owns its token. */
export interface RunnerConnection {
  send(message: GatewayToRunner): void;
  /** Installs the message handler; messages that arrived before are delivered first. */
  onMessage(handler: (message: RunnerToGateway) => void): void;
  /** Resolves when the runner's side closes. */
  closed: Promise<void>;
  close(): void;
}

interface Waiting {
  token: string;
  resolve: (connection: RunnerConnection) => void;
}

/** Accepts runner connections and matches each to the run that registered its token. */
export class RunChannelServer {
  readonly socketPath: string;
  #listener: Deno.Listener | null = null;
  readonly #waiting = new Map<string, Waiting>();
  readonly #log: (message: string) => void;

  constructor(socketPath: string, options: { log?: (message: string) => void } = {}) {
    this.socketPath = socketPath;
    this.#log = options.log ?? (() => {});
  }

  /** Starts listening; the socket's directory must already be private (0700). */
  start(): void {
    try {
      Deno.removeSync(this.socketPath);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    this.#listener = Deno.listen({ transport: "unix", path: this.socketPath });
    Deno.chmodSync(this.socketPath, 0o600);
    this.#acceptLoop(this.#listener);
  }

  async #acceptLoop(listener: Deno.Listener): Promise<void> {
    try {
      for await (const conn of listener) this.#handshake(conn);
    } catch (error) {
      if (this.#listener !== null) this.#log(`runner channel stopped accepting: ${error}`);
    }
  }

  /**
   * Registers a one-time token; the promise resolves with the connection of the runner that
   * presents it. `cancel` withdraws the registration.
   */
  expect(token: string): { connection: Promise<RunnerConnection>; cancel: () => void } {
    let resolve!: (connection: RunnerConnection) => void;
    const connection = new Promise<RunnerConnection>((r) => (resolve = r));
    this.#waiting.set(token, { token, resolve });
    return { connection, cancel: () => this.#waiting.delete(token) };
  }

  #handshake(conn: Deno.Conn): void {
    const queue: RunnerToGateway[] = [];
    let handler: ((message: RunnerToGateway) => void) | null = null;
    let identified = false;
    const encoder = new TextEncoder();
    let writing: Promise<unknown> = Promise.resolve();
    let open = true;
    let resolveClosed!: () => void;
    const closed = new Promise<void>((r) => (resolveClosed = r));
    const close = () => {
      if (!open) return;
      open = false;
      try {
        conn.close();
      } catch {
        // already closed by the peer
      }
    };
    const connection: RunnerConnection = {
      send: (message) => {
        if (!open) return;
        const bytes = encoder.encode(JSON.stringify(message) + "\n");
        writing = writing.then(async () => {
          let offset = 0;
          while (offset < bytes.length) offset += await conn.write(bytes.subarray(offset));
        }).catch(() => close());
      },
      onMessage: (h) => {
        handler = h;
        for (const m of queue.splice(0)) h(m);
      },
      closed,
      close,
    };
    const deliver = (message: RunnerToGateway) => {
      if (!identified) {
        const waiting = message.t === "hello" ? this.#claim(message.token) : null;
        if (!waiting) {
          this.#log("runner channel: refused a connection with an unknown or used token");
          connection.send({ t: "refused", message: "unknown run token" });
          setTimeout(close, 50);
          return;
        }
        identified = true;
        waiting.resolve(connection);
        return;
      }
      if (handler) handler(message);
      else queue.push(message);
    };
    (async () => {
      const decoder = new TextDecoder();
      let buffered = "";
      const buf = new Uint8Array(64 * 1024);
      try {
        for (;;) {
          const n = await conn.read(buf);
          if (n === null) break;
          buffered += decoder.decode(buf.subarray(0, n), { stream: true });
          if (buffered.length > MAX_CHANNEL_LINE_BYTES) {
            this.#log("runner channel: a message exceeded the size limit; closing");
            break;
          }
          let newline = buffered.indexOf("\n");
          while (newline >= 0) {
            const line = buffered.slice(0, newline);
            buffered = buffered.slice(newline + 1);
            if (line.trim() !== "") {
              let message: RunnerToGateway;
              try {
                message = JSON.parse(line) as RunnerToGateway;
              } catch {
                this.#log("runner channel: dropped a line that is not JSON");
                newline = buffered.indexOf("\n");
                continue;
              }
              deliver(message);
            }
            newline = buffered.indexOf("\n");
          }
          if (!open) break;
        }
      } catch {
        // the runner died or the connection was closed: handled below
      }
      close();
      resolveClosed();
    })();
  }

  #claim(token: string): Waiting | null {
    for (const [key, waiting] of this.#waiting) {
      if (timingSafeEqualText(key, token)) {
        this.#waiting.delete(key);
        return waiting;
      }
    }
    return null;
  }

  /** Stops listening and removes the socket file. */
  close(): void {
    const listener = this.#listener;
    this.#listener = null;
    try {
      listener?.close();
    } catch {
      // already closed
    }
    try {
      Deno.removeSync(this.socketPath);
    } catch {
      // gone already
    }
  }
}
