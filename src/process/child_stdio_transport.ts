/**
 * A `Transport` to a child process over its stdin and stdout, owning the child: it is started
 * by `SupervisedChild` (its own process group, the OS sandbox when asked, stderr kept as a
 * tail), its messages are newline-delimited JSON, and when it is gone the transport closes with
 * how it ended (`its process exited with code 3: <the end of its stderr>`), once its pipes are
 * drained, so every message it wrote before dying is delivered first.
 * @module
 */

import {
  OVER_SIZE_LIMIT,
  StreamTransport,
  type StreamTransportOptions,
} from "../protocol/stream_transport.ts";
import type { Transport, TransportEvents, WireMessage } from "../protocol/transport.ts";
import { InboxBuffer } from "../protocol/transport.ts";
import { SupervisedChild, type SupervisedChildOptions } from "./supervised_child.ts";

/** How to start the child, and how to read and write its messages. */
export type ChildStdioTransportOptions =
  & Omit<SupervisedChildOptions, "stdin" | "stdout">
  & StreamTransportOptions;

/**
 * The transport to one child; see the module doc. Closing it closes the child's stdin and
 * kills its group at once (a graceful end is `child.terminate()` first).
 *
 * @example
 * ```ts ignore
 * const transport = new ChildStdioTransport({ argv: [Deno.execPath(), "run", "worker.ts"] });
 * const peer = new MessagePeer(transport);
 * await peer.request("ping");
 * ```
 */
export class ChildStdioTransport implements Transport {
  /** The child process. */
  readonly child: SupervisedChild;
  readonly #stream: StreamTransport;
  readonly #inbox = new InboxBuffer();
  #closing = false;

  constructor(options: ChildStdioTransportOptions) {
    this.child = new SupervisedChild({ ...options, stdin: "piped", stdout: "piped" });
    const child = this.child;
    this.#stream = new StreamTransport({
      readable: child.stdout,
      writable: child.stdin,
    }, { guardLines: true, ...options });
    this.#stream.start({
      message: (message) => this.#inbox.message(message),
      close: (reason) => {
        if (this.#closing) {
          this.#inbox.close(reason);
          return;
        }
        if (reason === OVER_SIZE_LIMIT) {
          // The child is alive and writing what cannot be read: it is ended here, and the
          // close names the limit rather than the exit it would cause.
          this.#closing = true;
          child.signal("SIGKILL");
          this.#inbox.close(`its process sent ${reason} of ${this.#stream.maxMessageBytes} bytes`);
          return;
        }
        // The child closed its stdout (it exited, or is exiting): the close says how it ended.
        child.closed.then(() => this.#inbox.close(`its process ${child.endReason(true)}`));
      },
    });
  }

  start(events: TransportEvents): void {
    this.#inbox.start(events);
  }

  send(message: WireMessage): void {
    this.#stream.send(message);
  }

  /** Ends the child at once (its whole group) and closes. */
  close(reason = "closed"): void {
    if (this.#closing) return;
    this.#closing = true;
    this.#stream.close(reason);
    this.child.signal("SIGKILL");
  }

  flushed(): Promise<void> {
    return this.#stream.flushed();
  }
}
