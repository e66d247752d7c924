/**
 * The gateway's direct lines to the Workers of one shared tool host (issue 12: a call crossed
 * the host's main thread and a `postMessage` both ways, ≈ 0.1 ms of CPU per call): a unix
 * socket in a private 0700 directory that each Worker connects to once, before it imports any
 * module, and on which it then says `join` with the one-time-per-placement token of every module
 * it takes. Calls and results travel on that connection; the host's own thread connects too,
 * with the host's token, and carries the lifecycle (load, unload, ready, load_error, log, exit,
 * restarted): every message the gateway acts on comes on a link only its sender could open, never
 * on the process's stdout, which every module shares. Connections that do not identify
 * themselves are bounded in number, bytes and time, and refused with a log line (SEC-07).
 * @module
 */

import { join } from "node:path";
import type { LogMethods } from "../../logger.ts";
import { timingSafeEqualText } from "../../protocol/timing_safe_equal.ts";
import { readLinesFrom, SerialWriter } from "./tool_host_protocol.ts";

/** Longest line an identified Worker may send (a call's result is one line). */
const MAX_MESSAGE_LENGTH = 64 * 1024 * 1024;
/** Time a connection has to present a module's token. */
const JOIN_TIMEOUT_MS = 10_000;
/**
 * Connections held at once before they present a token; more are closed on accept. Workers
 * started together (one per permission set) each hold one for the moment before their join.
 */
const MAX_UNIDENTIFIED = 64;
/** Characters accepted from a connection before its first `join`. */
const MAX_JOIN_LENGTH = 4096;
/** Forgotten modules' tokens still recognised (see `WorkerLinks.forget`). */
const MAX_RETIRED = 256;

/** What the links need from a module of the shared host (`SharedModule`). */
export interface LinkedModule {
  /** The module's id in the host (the `worker` field of its messages). */
  readonly worker: number;
  /** The secret its Worker presents to join; known only to the gateway, the host and the Worker. */
  readonly token: string;
  /**
   * A Worker presented the module's token for placement `placement` (the host's count of the
   * Workers the module was loaded into). Returns false to refuse a stale placement.
   */
  joined(link: WorkerLink, placement: number): boolean;
  /** A message its Worker sent on the link (a call's result). */
  receive(message: Record<string, unknown>): void;
  /** Its Worker is being ended by the gateway: later calls wait for the next Worker. */
  detach(): void;
  /** The link it joined on closed (its Worker is gone; the host says why on stdout). */
  unlinked(link: WorkerLink): void;
}

/**
 * The shared host's own thread on the socket: it presents the host's token (sent on the
 * host's stdin before any module runs), then carries the modules' lifecycle both ways (`load`
 * and `unload` to the host; `ready`, `load_error`, `log`, `exit`, `restarted` back). Nothing a
 * module writes to the process's stdout, or posts from its Worker, reaches the gateway as
 * lifecycle: only this link, which no module can open (the token was read and stdin closed
 * before any Worker existed, and a Worker cannot use its host thread's connection).
 */
export interface HostEnd {
  /** The secret the host's thread presents; known only to the gateway and that thread. */
  readonly token: string;
  /** The host's thread presented the token (once; later presentations are refused). */
  joined(link: WorkerLink): void;
  /** A lifecycle message from the host's thread. */
  receive(message: Record<string, unknown>): void;
  /** The host's link closed (the host is gone or going). */
  unlinked(link: WorkerLink): void;
}

/** One Worker's connection: the modules that joined on it, and ordered whole-line writes. */
export class WorkerLink {
  readonly #conn: Deno.Conn;
  readonly #writer: SerialWriter;
  /** The modules that joined on this link, by id. */
  readonly modules = new Map<number, LinkedModule>();
  #closed = false;
  readonly #ended = Promise.withResolvers<void>();

  constructor(conn: Deno.Conn) {
    this.#conn = conn;
    this.#writer = new SerialWriter(conn, () => this.close());
  }

  /** Settles once every line the peer sent has been handled and the link is closed. */
  get ended(): Promise<void> {
    return this.#ended.promise;
  }

  /** Marks the link read to its end (by the links' reader). */
  finished(): void {
    this.#ended.resolve();
  }

  /** Whether the connection is gone. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Sends one framed line (`encodeMessage`); dropped once the link is closed. */
  send(line: string): void {
    if (!this.#closed) this.#writer.write(line);
  }

  /** Closes the connection (idempotent). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#conn.close();
    } catch {
      // already closed by the peer
    }
  }
}

/** The listener of one shared host process and the modules whose Workers may join it. */
export class WorkerLinks {
  /** Where Workers connect; passed to the host with each module's load. */
  readonly socketPath: string;
  readonly #dir: string;
  readonly #listener: Deno.Listener;
  readonly #logger: LogMethods;
  readonly #modules = new Map<number, LinkedModule>();
  readonly #links = new Set<WorkerLink>();
  /** The shared host's thread that may present its token, until it has. */
  #host: HostEnd | undefined;
  /** Tokens of modules forgotten lately, by Worker number (see `forget`). */
  readonly #retired = new Map<number, string>();
  #unidentified = 0;
  #listening = true;
  #closed = false;

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

  /** Lets `module`'s Worker join with its token. */
  expect(module: LinkedModule): void {
    this.#modules.set(module.worker, module);
  }

  /**
   * The module is gone: its token no longer joins. It is remembered as retired, so a Worker
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

  /** Stops listening, closes every link and removes the directory (idempotent). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.stopListening();
    for (const link of this.#links) link.close();
    this.#links.clear();
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

  /** Reads one connection's lines: joins first, then its modules' messages. */
  async #serve(conn: Deno.Conn): Promise<void> {
    const link = new WorkerLink(conn);
    this.#links.add(link);
    this.#unidentified++;
    let identified = false;
    /** The host this link is the thread of, once it presented the host's token. */
    let host: HostEnd | undefined;
    let seen = 0;
    const refuse = (why: string) => {
      this.#logger.warn(`tool Worker links: refused a connection: ${why}`);
      link.close();
    };
    const timer = setTimeout(() => {
      if (!identified) refuse(`no module token within ${JOIN_TIMEOUT_MS} ms`);
    }, JOIN_TIMEOUT_MS);
    Deno.unrefTimer(timer);
    try {
      await readLinesFrom(conn, (line) => {
        if (link.closed) return;
        if (!identified) {
          seen += line.length;
          if (seen > MAX_JOIN_LENGTH) return refuse("too much before a module token");
        }
        let message: Record<string, unknown>;
        try {
          message = JSON.parse(line);
        } catch {
          if (!identified) return refuse("a line that is not JSON");
          this.#logger.warn(
            `a tool Worker wrote a line that is not a message: dropped: ${
              JSON.stringify(line.slice(0, 200))
            }`,
          );
          return;
        }
        if (host !== undefined) return host.receive(message);
        if (message.type === "host" && !identified) {
          const expected = this.#host;
          if (
            expected === undefined || typeof message.token !== "string" ||
            !timingSafeEqualText(expected.token, message.token)
          ) {
            return refuse("an unknown or used host token");
          }
          this.#host = undefined;
          host = expected;
          identified = true;
          this.#unidentified--;
          clearTimeout(timer);
          host.joined(link);
          return;
        }
        if (message.type === "join") {
          const joined = this.#join(link, message);
          if (joined === "refused") {
            if (!identified) return refuse("an unknown or used module token");
            this.#logger.info("tool Worker links: ignored a join with an unknown token");
            return;
          }
          if (joined === "retired") {
            // A Worker joining for a module the gateway has dropped since (unloaded while it
            // was placed): the token proves it, and its other modules keep their link.
            this.#logger.info("tool Worker links: ignored a join for a module that is gone");
          }
          if (!identified) {
            identified = true;
            this.#unidentified--;
            clearTimeout(timer);
          }
          return;
        }
        if (!identified) return refuse("a message before a module token");
        const module = typeof message.worker === "number"
          ? link.modules.get(message.worker)
          : undefined;
        module?.receive(message);
      }, {
        maxLineLength: MAX_MESSAGE_LENGTH,
        onOversized: (length) =>
          this.#logger.warn(`a tool Worker sent a line of ${length} characters: dropped`),
      });
    } catch {
      // a reset connection ends like a closed one
    } finally {
      clearTimeout(timer);
      if (!identified) this.#unidentified--;
      link.close();
      this.#links.delete(link);
      for (const module of link.modules.values()) module.unlinked(link);
      host?.unlinked(link);
      link.finished();
    }
  }

  #join(
    link: WorkerLink,
    message: Record<string, unknown>,
  ): "joined" | "retired" | "refused" {
    const { worker, token, placement } = message;
    if (typeof worker !== "number" || typeof token !== "string") return "refused";
    if (typeof placement !== "number") return "refused";
    const module = this.#modules.get(worker);
    if (module === undefined) {
      const retired = this.#retired.get(worker);
      return retired !== undefined && timingSafeEqualText(retired, token) ? "retired" : "refused";
    }
    if (!timingSafeEqualText(module.token, token)) return "refused";
    if (!module.joined(link, placement)) return "refused";
    link.modules.set(worker, module);
    return "joined";
  }
}
