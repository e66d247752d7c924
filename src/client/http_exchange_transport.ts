/**
 * The wire of one CLI request: a `Transport` over one HTTP exchange on a connection of its
 * own. The first message sent is the JSON-RPC request, written as `POST /rpc`; what comes back
 * is the answer's body, one JSON message per line (the request's notifications, then its
 * response), read as it arrives. A later message can only be a cancel, which closes the
 * connection (the server aborts a request whose client went away). An HTTP refusal (401, 400)
 * arrives as the request's error answer.
 * @module
 */

import { readAnswer, requestBytes } from "./http_response_reader.ts";
import { writeAll } from "../protocol/bytes.ts";
import { RpcCode } from "../protocol/json_rpc.ts";
import { LineFramer } from "../protocol/line_framer.ts";
import { messageOf } from "../protocol/message_of.ts";
import {
  InboxBuffer,
  type Transport,
  type TransportEvents,
  type WireMessage,
} from "../protocol/transport.ts";

/** See the module doc. */
export class HttpExchangeTransport implements Transport {
  readonly #conn: Deno.Conn;
  readonly #headers: Record<string, string>;
  readonly #inbox = new InboxBuffer();
  #sent = false;
  #closed = false;
  #writing: Promise<void> = Promise.resolve();

  /** `conn` is connected already; `headers` go with the request (the host, a token). */
  constructor(conn: Deno.Conn, headers: Record<string, string>) {
    this.#conn = conn;
    this.#headers = headers;
  }

  start(events: TransportEvents): void {
    this.#inbox.start(events);
  }

  send(message: WireMessage): void {
    if (this.#closed) return;
    if (this.#sent) {
      // Nothing but a cancel follows the request on this wire: going away is the cancel.
      this.close("cancelled");
      return;
    }
    const body = JSON.stringify(message);
    if (body === undefined) throw new TypeError("The request is not JSON");
    this.#sent = true;
    const id = message.id;
    this.#writing = this.#exchange(requestBytes("POST", "/rpc", this.#headers, body), id);
  }

  close(reason = "closed"): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#conn.close();
    } catch {
      // closed by the server already
    }
    this.#inbox.close(reason);
  }

  flushed(): Promise<void> {
    return this.#writing;
  }

  async #exchange(request: Uint8Array, id: unknown): Promise<void> {
    let reason = "closed by the other side";
    try {
      await writeAll(this.#conn, request);
      const answer = await readAnswer(this.#conn);
      if (answer.status !== 200) {
        this.#inbox.message({ id, error: refusal(answer.status, await readText(answer.body)) });
      } else {
        const lines = new LineFramer((line) => {
          let message: unknown;
          try {
            message = JSON.parse(line);
          } catch {
            return; // the server sends only JSON-RPC; a line that is not is dropped
          }
          if (typeof message === "object" && message !== null && !Array.isArray(message)) {
            this.#inbox.message(message as WireMessage);
          }
        });
        for await (const chunk of answer.body) lines.push(chunk);
        lines.end();
      }
    } catch (error) {
      if (this.#closed) return;
      reason = `the connection failed: ${messageOf(error)}`;
    }
    this.close(reason);
  }
}

async function readText(body: AsyncIterable<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of body) text += decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}

/**
 * The error an HTTP refusal stands for: the RPC error it carries, or its status and text (with
 * `data.httpStatus`, so the client can tell a refusal from an error the method answered).
 */
function refusal(status: number, text: string): { code: number; message: string; data?: unknown } {
  let error: { code?: unknown; message?: unknown; data?: unknown } | undefined;
  try {
    error = (JSON.parse(text) as { error?: typeof error }).error;
  } catch {
    // not JSON
  }
  if (error && typeof error.code === "number" && typeof error.message === "string") {
    return error.data === undefined
      ? { code: error.code, message: error.message }
      : { code: error.code, message: error.message, data: error.data };
  }
  const message = typeof error?.message === "string" ? error.message : text.slice(0, 200);
  return {
    code: RpcCode.InternalError,
    message: `The gateway answered ${status}: ${message}`,
    data: { httpStatus: status },
  };
}
