/**
 * The gateway's direct lines to a tool host's runtimes: a unix socket in a private 0700
 * directory that each of the shared host's Workers (or an isolated host process) connects to
 * once, before it imports any module, and on which it then says `join` with the
 * one-time-per-placement token of every module it takes. Each joined module has a conversation
 * of its own on that connection (a `TransportMux` channel under a `MessagePeer`): its calls and
 * results travel there, never through the host's thread. The shared host's own thread connects
 * too, with the host's token, and carries the modules' lifecycle (load, unload, ready,
 * load_error, log, exit, restarted): every message the gateway acts on comes on a link only its
 * sender could open, never on the process's stdout, which every module shares. Connections that
 * do not identify themselves are bounded in number, bytes and time, and refused with a log line.
 * @module
 */

import { join } from "node:path";
import type { LogMethods } from "../../logger.ts";
import { timingSafeEqualText } from "../../protocol/timing_safe_equal.ts";
import { settlesWithin } from "../../process/terminate_process_group.ts";
import { StreamTransport } from "../../protocol/stream_transport.ts";
import { TransportMux } from "../../protocol/transport_mux.ts";
import type { Transport, WireMessage } from "../../protocol/transport.ts";
import { MODULE_FIELD } from "./tool_host_link.ts";

/** Longest message an identified runtime may send (a call's result is one message). */
const MAX_MESSAGE_LENGTH = 64 * 1024 * 1024;
/** Time a connection has to present a token. */
const JOIN_TIMEOUT_MS = 10_000;
/**
 * Connections held at once before they present a token; more are closed on accept. Workers
 * started together (one per permission set) each hold one for the moment before their join.
 */
const MAX_UNIDENTIFIED = 64;
/** Characters accepted from a connection before its first token. */
const MAX_JOIN_LENGTH = 4096;
/** Forgotten modules' tokens still recognised (see `WorkerLinks.forget`). */
const MAX_RETIRED = 256;

/** What the links need from a module of a tool host (`SharedModule`, `ToolHostProcess`). */
export interface LinkedModule {
  /** The module's id in the host (the channel its messages travel on). */
  readonly worker: number;
  /** The secret its runtime presents to join; known only to the gateway, the host and it. */
  readonly token: string;
  /**
   * A runtime presented the module's token for placement `placement` (the host's count of the
   * runtimes the module was loaded into) on `link`, where `channel` is the module's own
   * conversation. Returns false to refuse a stale placement.
   */
  joined(link: WorkerLink, channel: Transport, placement: number): boolean;
}

/**
 * The shared host's own thread on the socket: it presents the host's token (sent on the
 * host's stdin before any module runs), then carries the modules' lifecycle both ways. Nothing
 * a module writes to the process's stdout, or posts from its Worker, reaches the gateway as
 * lifecycle: only this link, which no module can open (the token was read and stdin closed
 * before any Worker existed, and a Worker cannot use its host thread's connection).
 */
export interface HostEnd {
  /** The secret the host's thread presents; known only to the gateway and that thread. */
  readonly token: string;
  /** The host's thread presented the token (once): `transport` carries the lifecycle now. */
  joined(transport: Transport): void;
}

/** One runtime's identified connection: the modules that joined on it, each on its channel. */
export class WorkerLink {
  /** The modules that joined on this link, by id. */
  readonly modules = new Map<number, LinkedModule>();
  #mux!: TransportMux;
  readonly #ended = Promise.withResolvers<void>();

  /** The link of one identified connection, split into the modules' conversations. */
  constructor(transport: Transport, onControl: (link: WorkerLink, message: WireMessage) => void) {
    this.#mux = new TransportMux(transport, MODULE_FIELD, {
      control: (message) => onControl(this, message),
      close: () => this.#ended.resolve(),
    });
  }

  /** Settles once everything the runtime sent has been handled and the link is closed. */
  get ended(): Promise<void> {
    return this.#ended.promise;
  }

  /** Whether the connection is gone. */
  get closed(): boolean {
    return this.#mux.closed !== null;
  }

  /** Module `worker`'s conversation on this link. */
  channel(worker: number): Transport {
    return this.#mux.channel(worker);
  }

  /** Closes the connection (idempotent): every module's conversation on it ends. */
  close(): void {
    this.#mux.close("the gateway closed the link");
  }
}

/** The listener of one tool host and the modules whose runtimes may join it. */
export class WorkerLinks {
  /** Where runtimes connect; passed to the host with each module's load. */
  readonly socketPath: string;
  readonly #dir: string;
  readonly #listener: Deno.Listener;
  readonly #logger: LogMethods;
  readonly #modules = new Map<number, LinkedModule>();
  readonly #transports = new Set<StreamTransport>();
  /** The shared host's thread that may present its token, until it has. */
  #host: HostEnd | undefined;
  /** Tokens of modules forgotten lately, by module id (see `forget`). */
  readonly #retired = new Map<number, string>();
  #unidentified = 0;
  #listening = true;
  #closed = false;
  #idle: (() => void)[] = [];

  /** Listens in a new private directory under `parent` (default: the system temp dir). */
  constructor(logger: LogMethods, parent?: string) {
    this.#logger = logger;
    this.#dir = Deno.makeTempDirSync({
      // `tools-PID-…`: a later server removes it if this one dies (gateway_state.ts).
      prefix: `tools-${Deno.pid}-`,
      ...(parent === undefined ? {} : { dir: parent }),
    });
    Deno.chmodSync(this.#dir, 0o700);
    this.socketPath = join(this.#dir, "s");
    this.#listener = Deno.listen({ transport: "unix", path: this.socketPath });
    Deno.chmodSync(this.socketPath, 0o600);
    this.#accept();
  }

  /** Lets the shared host's thread present `host.token` once (see {@linkcode HostEnd}). */
  expectHost(host: HostEnd): void {
    this.#host = host;
  }

  /** Lets `module`'s runtime join with its token. */
  expect(module: LinkedModule): void {
    this.#modules.set(module.worker, module);
  }

  /**
   * The module is gone: its token no longer joins. It is remembered as retired, so a runtime
   * that proves itself with it (it was loading the module when the gateway dropped it, e.g. a
   * module that failed at import beside others in the same Worker) is identified without a
   * module, instead of refused: refusing closed the connection its other modules' joins were
   * on, and their calls were never answered.
   */
  forget(module: LinkedModule): void {
    if (this.#modules.get(module.worker) !== module) return;
    this.#modules.delete(module.worker);
    this.#retired.set(module.worker, module.token);
    if (this.#retired.size > MAX_RETIRED) {
      this.#retired.delete(this.#retired.keys().next().value!);
    }
  }

  /**
   * Stops listening and removes the socket's directory; the links made stay (an isolated host
   * has its one link once it joined: nothing may connect after it). Idempotent.
   */
  stopListening(): void {
    if (this.#listening === false) return;
    this.#listening = false;
    try {
      this.#listener.close();
    } catch {
      // already closed
    }
    try {
      Deno.removeSync(this.#dir, { recursive: true });
    } catch (error) {
      // Gone with the server's run directory already.
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }

  /**
   * Resolves once every connection made so far has been read to its end (a host that died has
   * had what it sent before dying handled), or after `maxMs`. A connection the host made just
   * before dying may wait in the listener's backlog: the accept loop gets a turn first.
   */
  async drained(maxMs: number): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, 0));
    if (this.#transports.size === 0) return;
    await settlesWithin(new Promise<void>((resolve) => this.#idle.push(resolve)), maxMs);
  }

  /** Stops listening, closes every link and removes the directory (idempotent). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.stopListening();
    for (const transport of this.#transports) transport.close("the tool host is gone");
    this.#transports.clear();
  }

  async #accept(): Promise<void> {
    try {
      for await (const conn of this.#listener) {
        if (this.#unidentified >= MAX_UNIDENTIFIED) {
          this.#logger.warn("tool Worker links: refused a connection (too many unidentified)");
          conn.close();
          continue;
        }
        this.#serve(conn);
      }
    } catch (error) {
      if (this.#listening) {
        this.#logger.warn(`tool Worker links: the listener failed: ${String(error)}`);
      }
    }
  }

  /** Identifies one connection: the host's thread, or a runtime joining for its modules. */
  #serve(conn: Deno.Conn): void {
    const transport = StreamTransport.fromConn(conn, {
      maxMessageBytes: MAX_JOIN_LENGTH,
      onDropped: (why) => {
        if (identified) this.#logger.warn(`a tool Worker sent ${why}: dropped`);
        else refuse(why);
      },
      onOversized: (line) =>
        this.#logger.warn(`a tool Worker sent a line of ${line.length} characters: dropped`),
    });
    this.#transports.add(transport);
    // Read to its end (whoever reads it after the handshake): forgotten.
    transport.readDone.then(() => {
      this.#transports.delete(transport);
      if (this.#transports.size === 0) { for (const resolve of this.#idle.splice(0)) resolve(); }
    });
    this.#unidentified++;
    let identified = false;
    const identify = () => {
      identified = true;
      this.#unidentified--;
      clearTimeout(timer);
      transport.maxMessageBytes = MAX_MESSAGE_LENGTH;
      transport.oversized = "drop";
    };
    const refuse = (why: string) => {
      this.#logger.warn(`tool Worker links: refused a connection: ${why}`);
      transport.close("refused");
    };
    const timer = setTimeout(() => {
      if (!identified) refuse(`no module token within ${JOIN_TIMEOUT_MS} ms`);
    }, JOIN_TIMEOUT_MS);
    Deno.unrefTimer(timer);
    transport.start({
      message: (message) => {
        if (transport.closed) return;
        const params = (message.params ?? {}) as Record<string, unknown>;
        if (message.method === "host") {
          const expected = this.#host;
          if (
            expected === undefined || typeof params.token !== "string" ||
            !timingSafeEqualText(expected.token, params.token)
          ) {
            return refuse("an unknown or used host token");
          }
          this.#host = undefined;
          identify();
          // What follows is the lifecycle, for the host's own peer.
          transport.hold();
          expected.joined(transport);
          return;
        }
        if (message.method !== "join") return refuse("a message before a module token");
        const link = new WorkerLink(transport, (on, more) => this.#join(on, more, () => {}));
        this.#join(link, message, refuse, identify);
      },
      close: () => {
        clearTimeout(timer);
        if (!identified) this.#unidentified--;
      },
    });
  }

  /** A `join` on `link`: the module takes its channel there, or the join is refused. */
  #join(
    link: WorkerLink,
    message: WireMessage,
    refuse: (why: string) => void,
    identify?: () => void,
  ): void {
    if (message.method !== "join") {
      this.#logger.warn("a tool Worker sent a message for no module: dropped");
      return;
    }
    const { worker, token, placement } = (message.params ?? {}) as Record<string, unknown>;
    const known = typeof worker === "number" && typeof token === "string" &&
        typeof placement === "number"
      ? this.#modules.get(worker)
      : undefined;
    if (known === undefined) {
      const retired = typeof worker === "number" ? this.#retired.get(worker) : undefined;
      if (
        retired !== undefined && typeof token === "string" && timingSafeEqualText(retired, token)
      ) {
        // A Worker joining for a module the gateway has dropped since (unloaded while it was
        // placed): the token proves it, and its other modules keep their link.
        this.#logger.info("tool Worker links: ignored a join for a module that is gone");
        identify?.();
        return;
      }
      if (identify !== undefined) return refuse("an unknown or used module token");
      this.#logger.info("tool Worker links: ignored a join with an unknown token");
      return;
    }
    const proven = timingSafeEqualText(known.token, token as string);
    // Identified before it joins: the module's calls that waited for it go out in the join's
    // turn, and need the joined link's limit, not the handshake's.
    if (proven) identify?.();
    if (!proven || !known.joined(link, link.channel(known.worker), placement as number)) {
      if (identify !== undefined) return refuse("an unknown or used module token");
      this.#logger.info("tool Worker links: ignored a join with an unknown token");
      return;
    }
    link.modules.set(known.worker, known);
  }
}
