/**
 * A raw WebSocket to the gateway's `/ws` that sends any text or bytes and hands back each reply
 * as parsed JSON, so tests can speak broken JSON-RPC on purpose and see every answer.
 * @module
 */

/** One open `/ws` connection; replies are queued in arrival order. */
export class RpcSocket {
  readonly #socket: WebSocket;
  readonly #replies: unknown[] = [];
  readonly #waiters: Array<(reply: unknown) => void> = [];
  #closed: { code: number; reason: string } | null = null;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.onmessage = (event) => {
      const reply = typeof event.data === "string" ? JSON.parse(event.data) : event.data;
      const waiter = this.#waiters.shift();
      if (waiter) waiter(reply);
      else this.#replies.push(reply);
    };
    socket.onclose = (event) => {
      this.#closed = { code: event.code, reason: event.reason };
    };
  }

  /** Opens `ws://127.0.0.1:PORT/ws?token=…` and waits until it is open. */
  static open(port: number, token: string): Promise<RpcSocket> {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${encodeURIComponent(token)}`);
    return new Promise((resolve, reject) => {
      socket.onopen = () => resolve(new RpcSocket(socket));
      socket.onerror = (event) =>
        reject(
          new Error(`Cannot open /ws: ${event instanceof ErrorEvent ? event.message : "error"}`),
        );
    });
  }

  /** Whether the server closed the connection, and how. */
  get closed(): { code: number; reason: string } | null {
    return this.#closed;
  }

  /** Sends a frame as it is: text, or bytes as a binary frame. */
  send(frame: string | Uint8Array): void {
    this.#socket.send(frame);
  }

  /** The next reply, or an error after `timeoutMs`. */
  next(timeoutMs = 10_000): Promise<unknown> {
    const queued = this.#replies.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const at = this.#waiters.indexOf(waiter);
        if (at >= 0) this.#waiters.splice(at, 1);
        reject(new Error(`No reply within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter = (reply: unknown) => {
        clearTimeout(timer);
        resolve(reply);
      };
      this.#waiters.push(waiter);
    });
  }

  /** Sends `message` as JSON text and returns the next reply. */
  async ask(message: unknown, timeoutMs?: number): Promise<Record<string, unknown>> {
    this.send(JSON.stringify(message));
    return await this.next(timeoutMs) as Record<string, unknown>;
  }

  /** Closes the connection and waits for the close to finish. */
  close(): Promise<void> {
    if (this.#socket.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, 1000);
      this.#socket.addEventListener("close", () => {
        clearTimeout(timer);
        resolve();
      }, { once: true });
      this.#socket.close();
    });
  }
}
