/**
 * The gateway's end of a runner's channel: a unix socket of its own, in the runner's private
 * directory, that lives only until the runner has proved itself with its one-time token. Then
 * the listener is closed and the socket file removed, before any script code is loaded, so no
 * script can delete, listen on or flood a socket another run depends on.
 * Connections that do not identify themselves are bounded in number, bytes and time.
 * @module
 */

import {
  CHANNEL_NAME,
  ChannelMethod,
  type HelloParams,
  MAX_CHANNEL_LINE_BYTES,
} from "../protocol/channel_messages.ts";
import { timingSafeEqualText } from "../protocol/timing_safe_equal.ts";
import { type Clock, systemClock } from "../protocol/clock.ts";
import { MessagePeer } from "../protocol/message_peer.ts";
import { StreamTransport } from "../protocol/stream_transport.ts";
import type { WireMessage } from "../protocol/transport.ts";

/** An identified runner's channel, handed to the run that owns its token. */
export interface RunnerConnection {
  /**
   * The gateway's side of the conversation (the call broker serves its requests), made on first
   * use: what the runner sent before waits for the handlers registered in that turn.
   */
  readonly peer: MessagePeer;
  /**
   * Resolves once every message of the run is in: the runner said `$/end` (what follows is
   * dropped) or its side closed.
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
  readonly #stringify: (message: WireMessage) => string;
  readonly #clock: Clock;

  constructor(
    options: {
      log?: (message: string) => void;
      limits?: Partial<ChannelLimits>;
      /** Serialises every message sent to a runner (masking the config's secrets). */
      stringify?: (message: WireMessage) => string;
      /** The hello deadline. @default {systemClock} */
      clock?: Clock;
    } = {},
  ) {
    this.#log = options.log ?? (() => {});
    this.#limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.#stringify = options.stringify ?? ((message) => JSON.stringify(message));
    this.#clock = options.clock ?? systemClock;
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
    const pending = new Set<StreamTransport>();
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
      for (const transport of pending) transport.close("the run was cancelled");
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
          const transport = StreamTransport.fromConn(conn, {
            maxMessageBytes: this.#limits.maxHelloBytes,
            stringify: this.#stringify,
            wireName: CHANNEL_NAME,
            onDropped: (why) => this.#log(`runner channel: dropped ${why}`),
          });
          pending.add(transport);
          this.#handshake(transport, token, (identified) => {
            pending.delete(transport);
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

  /**
   * Reads the hello; hands `done` the connection when it carries `token`, else null (the
   * connection is refused and closed).
   */
  #handshake(
    transport: StreamTransport,
    token: string,
    done: (connection: RunnerConnection | null) => void,
  ): void {
    const clock = this.#clock;
    let settled = false;
    const refuse = () => {
      if (settled) return;
      settled = true;
      clock.clearTimeout(timer);
      this.#log("runner channel: refused a connection with an unknown or used token");
      try {
        transport.send({ method: ChannelMethod.refused, params: { message: "unknown run token" } });
      } catch {
        // nothing more can be written
      }
      transport.flushed().then(() => transport.close("refused"));
      done(null);
    };
    const timer = clock.setTimeout(() => {
      if (settled) return;
      settled = true;
      transport.close("no hello in time");
      done(null);
    }, this.#limits.helloTimeoutMs);
    transport.start({
      message: (message) => {
        if (settled) return;
        const hello = message.method === ChannelMethod.hello
          ? message.params as Partial<HelloParams> | undefined
          : undefined;
        if (typeof hello?.token !== "string" || !timingSafeEqualText(token, hello.token)) {
          refuse();
          return;
        }
        settled = true;
        clock.clearTimeout(timer);
        // What follows the hello waits for the run's peer.
        transport.hold();
        transport.maxMessageBytes = this.#limits.maxMessageBytes;
        done(identifiedConnection(transport, this.#log));
      },
      close: () => {
        if (settled) return;
        settled = true;
        clock.clearTimeout(timer);
        done(null);
      },
    });
  }
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // closed by the peer already
  }
}

function identifiedConnection(
  transport: StreamTransport,
  log: (message: string) => void,
): RunnerConnection {
  let peer: MessagePeer | undefined;
  const { promise: closed, resolve: settleClosed } = Promise.withResolvers<void>();
  return {
    // Made when the run takes the runner: what it sent before waits for the run's handlers.
    get peer() {
      if (peer === undefined) {
        peer = new MessagePeer(transport, {
          onDropped: (why) => log(`runner channel: dropped ${why}`),
        });
        peer.onClose(() => settleClosed());
      }
      return peer;
    },
    closed,
    close: () => {
      if (peer === undefined) {
        transport.close("the run is over");
        settleClosed();
      } else peer.close("the run is over");
    },
  };
}
