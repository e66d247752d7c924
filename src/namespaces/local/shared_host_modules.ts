/**
 * The state of the shared tool host: which module runs in which Worker, and the rules that keep
 * a module's failures its own. Modules with full permissions (the default) and the same
 * environment share a Worker: such a module can reach anything another could anyway. A module
 * with restricted permissions gets a Worker, a JavaScript realm, of its own, so nothing it runs
 * touches another module's globals, calls or lifecycle.
 *
 * A Worker imports its modules one at a time; modules waiting behind an import that takes over
 * `ADMIT_PATIENCE_MS` (busy or stuck) move to another Worker; a module that calls `Deno.exit`
 * gets `exit`, and the modules sharing its Worker are loaded again in a new one, their calls in
 * flight failing as `worker_restarted`, as when a module is stopped with calls in flight (a call
 * that ignored its abort may hold the Worker); a Worker that stops answering pings while it
 * imports a module (`BLOCKED_MS`) hands its other modules to a new one. A module unloaded with
 * no call in flight (a reload, a removed file) is forgotten and the others keep their state;
 * timers it started run on until its Worker ends.
 *
 * Workers, the gateway's link and time are handed in, so the rules are tested without a Worker
 * (`shared_host_modules_test.ts`); `shared_tool_host_main.ts` wires them to real ones. The
 * placement rules share one state, so they live in one class.
 * @module
 */

import { type Clock, systemClock, type TimerId } from "../../protocol/clock.ts";
import { withSocketGrant } from "./socket_grant.ts";
import type { WireError } from "../../protocol/message_peer.ts";

/** Gateway → shared host: load a module. */
export interface LoadRequest {
  /** The module's id (the gateway's `worker` number for it). */
  worker: number;
  moduleUrl: string;
  /** The Worker's permissions (`deno.permissions` of `new Worker`). */
  permissions: Deno.PermissionOptions;
  env: Record<string, string>;
  /** The gateway's socket for the module's calls (see `worker_links.ts`). */
  socket: string;
  /** What the module's Worker presents there to take its calls. */
  token: string;
}

/** Gateway → shared host: unload a module; `busy` when calls of it still wait (one ignored its abort). */
export interface UnloadRequest {
  worker: number;
  busy?: boolean;
}

/** Shared host → gateway, on the host's link. */
export type SharedHostNotice =
  | { type: "ready"; worker: number; exports: string[] }
  | { type: "load_error"; worker: number; error: WireError }
  | { type: "log"; worker: number; line: string }
  | { type: "exit"; worker: number; reason: string }
  /**
   * The module left its Worker of placement `placement` (the count of Workers it was loaded
   * into): its calls sent to that Worker that are still unanswered fail with `message`
   * (`worker_restarted`); later calls wait for the next Worker to join the gateway's socket.
   */
  | { type: "restarted"; worker: number; placement: number; message: string };

/** Host → Worker: import a module (its id in the host, its URL, its own environment). */
export interface WorkerLoadMessage {
  module: number;
  moduleUrl: string;
  /** Seen by the module through `Deno.env` before the process environment. */
  env: Record<string, string>;
  /** The gateway's socket for calls; the Worker connects once, on its first module. */
  socket: string;
  /** The module's token, presented on the socket to take its calls. */
  token: string;
  /** How many Workers the module was loaded into, this one included. */
  placement: number;
  /** Grants on the socket to revoke once connected (before any import). */
  revoke: Deno.PermissionDescriptor[];
}

/**
 * What a tool Worker tells the host's thread: a module imported (`ready`, with its function
 * exports) or failed to (`load_error`), a console line (`module` when the output came from a
 * module's import or call), or that a module ended the Worker. Module code runs in the Worker's
 * thread and can post too, so each field is checked here, and a post speaks only for the
 * modules of its own Worker.
 */
export type WorkerPost =
  | { type: "ready"; module: number; exports: string[] }
  | { type: "load_error"; module: number; error: WireError }
  | { type: "log"; module?: number; line: string }
  | { type: "exit"; module?: number; code: number };

/** One Worker, as the host's state drives it. */
export interface ModuleWorker {
  /** Imports a module. */
  load(message: WorkerLoadMessage): void;
  /** Forgets a module and aborts its calls. */
  unload(module: number): void;
  /** Asks for a sign of life; `answered` is called when it comes. */
  ping(answered: () => void): void;
  /** Ends the Worker at once (a busy loop too). */
  terminate(): void;
}

/** What the host's state is given. */
export interface SharedHostModulesOptions {
  /** Sends one lifecycle message to the gateway. */
  notify(notice: SharedHostNotice): void;
  /**
   * Starts a Worker with `permissions`: what it posts goes to `post`, and `failed` says it died
   * (an uncaught error). Throws when it cannot start.
   */
  startWorker(
    permissions: Deno.PermissionOptions,
    events: { post(data: unknown): void; failed(message: string): void },
  ): ModuleWorker;
  /** @default {systemClock} */
  clock?: Clock;
}

/**
 * How long a module's import may hold up the modules waiting for the same Worker before they
 * take another one (a module busy at import blocks its whole Worker).
 */
export const ADMIT_PATIENCE_MS = 500;
/**
 * How long a Worker importing a module may leave a ping unanswered before it counts as blocked
 * (a busy loop at import): the modules already in it then move to a new Worker, leaving the
 * importing one alone.
 */
export const BLOCKED_MS = 1_000;
/** How often a Worker that is importing a module is pinged. */
export const PING_MS = 250;

/** One module in the host. */
interface Member {
  /** The gateway's id for it (the `worker` field). */
  id: number;
  request: LoadRequest;
  state: "queued" | "importing" | "ready" | "failed";
  /** The gateway heard its `ready` or `load_error` once; later imports are silent. */
  announced: boolean;
  /** How many Workers it was loaded into (its Worker presents it when it joins the gateway). */
  placement: number;
  group: Group | undefined;
}

/** One Worker and the modules in it. */
interface Group {
  /** Permissions and environment: only modules with the same key share the Worker. */
  key: string;
  worker: ModuleWorker;
  /** Grants on the gateway's socket the Worker had only to connect (it revokes them then). */
  revoke: Deno.PermissionDescriptor[];
  members: Map<number, Member>;
  /** Module URLs this Worker imported: a reloaded module needs a fresh Worker to re-run. */
  imported: Set<string>;
  /** Modules waiting for their import, one at a time. */
  queue: Member[];
  admitting: Member | undefined;
  /** When the import of `admitting` began. */
  admittedAt: number;
  /** False once the Worker takes no more modules (it was slow to import, or is retiring). */
  open: boolean;
  patience: TimerId | undefined;
  /** Pings the Worker while it imports a module; undefined otherwise. */
  watchdog: TimerId | undefined;
  /** When the Worker last answered a ping (or started importing). */
  answeredAt: number;
}

/** JSON with sorted object keys, so equal permissions and environments give equal keys. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0
    );
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * Modules with equal keys may share a Worker: full permissions and the same environment. A
 * module with restricted permissions has a key of its own (see the module doc).
 */
function keyOf(request: LoadRequest): string {
  return request.permissions === "inherit"
    ? canonical(["inherit", request.env])
    : `own:${request.worker}`;
}

/** The exports a Worker reported, if they are a list of names. */
function exportNames(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((name) => typeof name === "string")
    ? value
    : undefined;
}

/** A Worker's error report reduced to the fields the gateway reads, if it has their shape. */
function wireError(value: unknown): WireError | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { message, data } = value as { message?: unknown; data?: unknown };
  if (typeof message !== "string") return undefined;
  const error: WireError = { message };
  if (typeof data === "object" && data !== null) {
    const { name, stack } = data as { name?: unknown; stack?: unknown };
    const kept: { name?: string; stack?: string } = {};
    if (typeof name === "string") kept.name = name;
    if (typeof stack === "string") kept.stack = stack;
    error.data = kept;
  }
  return error;
}

/** The shared host's modules and Workers; see the module doc. */
export class SharedHostModules {
  readonly #options: SharedHostModulesOptions;
  readonly #clock: Clock;
  readonly #groups = new Set<Group>();
  readonly #members = new Map<number, Member>();

  constructor(options: SharedHostModulesOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
  }

  /** Workers running now (for tests and diagnostics). */
  get workerCount(): number {
    return this.#groups.size;
  }

  /** The modules in each Worker, by module id, in the order the Workers started. */
  placements(): number[][] {
    return [...this.#groups].map((group) => [...group.members.keys()]);
  }

  /** The gateway asks for a module: it is placed in a Worker and imported there. */
  load(request: LoadRequest): void {
    const member: Member = {
      id: request.worker,
      request,
      state: "queued",
      announced: false,
      placement: 0,
      group: undefined,
    };
    this.#members.set(member.id, member);
    this.#place(member);
  }

  /**
   * The gateway drops a module: its Worker forgets it, the others keep running with their
   * state. A module unloaded with calls still in flight (`busy`: one ignored its abort, so its
   * code may hold the Worker) takes the Worker with it, and the others move to a new one. A
   * Worker left with no module ends.
   */
  unload(request: UnloadRequest): void {
    const member = this.#members.get(request.worker);
    if (member === undefined) return;
    const group = member.group;
    const { state } = member;
    this.#remove(member, "was unloaded");
    if (group === undefined) return;
    if (group.members.size === 0) return this.#drop(group);
    if (request.busy === true) {
      return this.#restart(
        group,
        `${member.request.moduleUrl}, which shared its Worker, was stopped with calls in flight`,
      );
    }
    if (state !== "queued") group.worker.unload(member.id);
    this.#admitNext(group);
  }

  /** The gateway is gone: every Worker ends. */
  closeAll(): void {
    for (const group of [...this.#groups]) this.#drop(group);
  }

  /** Fails the calls `member` has in a Worker that is gone, as `worker_restarted`. */
  #failInFlight(member: Member, why: string): void {
    if (member.placement === 0) return;
    this.#options.notify({
      type: "restarted",
      worker: member.id,
      placement: member.placement,
      message: `worker_restarted: the call did not finish: ${why}; the module was loaded ` +
        "again, so calling it again works",
    });
  }

  #drop(group: Group): void {
    this.#groups.delete(group);
    this.#clock.clearTimeout(group.patience);
    this.#clock.clearTimeout(group.watchdog);
    group.watchdog = undefined;
    // Its connection to the gateway closes with it; a result it was writing is cut short
    // there and dropped (its call fails on `restarted` or `exit`).
    group.worker.terminate();
  }

  /** The module is gone for good: the gateway hears `exit` (its calls fail there). */
  #remove(member: Member, reason: string): void {
    this.#members.delete(member.id);
    const group = member.group;
    if (group !== undefined) {
      group.members.delete(member.id);
      group.queue = group.queue.filter((m) => m !== member);
      if (group.admitting === member) group.admitting = undefined;
    }
    this.#options.notify({ type: "exit", worker: member.id, reason });
  }

  /** Loads `moving` (modules of `group`) again in another Worker; their calls in flight fail. */
  #move(group: Group, moving: Member[], why: string): void {
    for (const member of moving) {
      group.members.delete(member.id);
      group.queue = group.queue.filter((m) => m !== member);
      this.#failInFlight(member, why);
      member.group = undefined;
      this.#place(member);
    }
  }

  /** Ends `group`'s Worker and loads its remaining modules again elsewhere. */
  #restart(group: Group, why: string): void {
    this.#drop(group);
    this.#move(group, [...group.members.values()], why);
  }

  /** While `group` imports, a Worker that stops answering is blocked by that import. */
  #watch(group: Group): void {
    group.answeredAt = this.#clock.now();
    if (group.watchdog !== undefined) return;
    const tick = () => {
      group.watchdog = undefined;
      const culprit = group.admitting;
      if (culprit === undefined || !this.#groups.has(group)) return;
      if (this.#clock.now() - group.answeredAt > BLOCKED_MS) {
        group.open = false;
        const others = [...group.members.values()].filter((m) => m !== culprit);
        this.#move(
          group,
          others,
          `${culprit.request.moduleUrl}, loaded into its Worker, blocks it`,
        );
        return;
      }
      group.worker.ping(() => (group.answeredAt = this.#clock.now()));
      group.watchdog = this.#clock.setTimeout(tick, PING_MS);
    };
    group.watchdog = this.#clock.setTimeout(tick, PING_MS);
  }

  #admitNext(group: Group): void {
    if (group.admitting !== undefined) return;
    const member = group.queue.shift();
    if (member === undefined) return;
    group.admitting = member;
    group.admittedAt = this.#clock.now();
    member.state = "importing";
    group.imported.add(member.request.moduleUrl);
    group.worker.load({
      module: member.id,
      moduleUrl: member.request.moduleUrl,
      env: member.request.env,
      socket: member.request.socket,
      token: member.request.token,
      placement: ++member.placement,
      revoke: group.revoke,
    });
    this.#watch(group);
    // A module busy or stuck at import holds its Worker: the modules waiting behind it take
    // another one, and this Worker takes no newcomers.
    this.#clock.clearTimeout(group.patience);
    group.patience = this.#clock.setTimeout(() => {
      if (group.admitting !== member || group.queue.length === 0) return;
      group.open = false;
      for (const waiting of group.queue.splice(0)) {
        group.members.delete(waiting.id);
        waiting.group = undefined;
        this.#place(waiting);
      }
    }, ADMIT_PATIENCE_MS);
  }

  #settled(member: Member, outcome: SharedHostNotice & { type: "ready" | "load_error" }): void {
    const group = member.group;
    if (group?.admitting === member) {
      this.#clock.clearTimeout(group.patience);
      group.admitting = undefined;
    }
    member.state = outcome.type === "ready" ? "ready" : "failed";
    // A module loaded again after its Worker restarted was announced already.
    if (!(member.announced && outcome.type === "ready")) this.#options.notify(outcome);
    member.announced = true;
    if (group !== undefined) this.#admitNext(group);
  }

  #start(key: string, request: LoadRequest): Group | string {
    const { permissions, revoke } = typeof request.permissions === "string"
      ? { permissions: request.permissions, revoke: [] }
      : withSocketGrant(request.permissions, request.socket);
    const group: Group = {
      key,
      worker: undefined as unknown as ModuleWorker,
      revoke,
      members: new Map(),
      imported: new Set(),
      queue: [],
      admitting: undefined,
      admittedAt: 0,
      open: true,
      patience: undefined,
      watchdog: undefined,
      answeredAt: this.#clock.now(),
    };
    try {
      group.worker = this.#options.startWorker(permissions, {
        post: (data) => this.#onPost(group, data),
        failed: (message) => {
          if (!this.#groups.has(group)) return;
          this.#drop(group);
          for (const member of [...group.members.values()]) {
            this.#remove(member, `failed: ${message}`);
          }
        },
      });
    } catch (thrown) {
      return `cannot start its Worker: ${String(thrown)}`;
    }
    this.#groups.add(group);
    return group;
  }

  /**
   * A post from `group`'s Worker. Module code shares the Worker's thread and may post too: a
   * post is a {@linkcode WorkerPost} only once each field is checked, and speaks only for
   * modules of this Worker.
   */
  #onPost(group: Group, data: unknown): void {
    if (!this.#groups.has(group)) return; // terminated
    if (typeof data !== "object" || data === null) return;
    const message = data as Record<string, unknown>;
    if (message.type === "ready" || message.type === "load_error") {
      const member = typeof message.module === "number"
        ? group.members.get(message.module)
        : undefined;
      if (member === undefined || member.state !== "importing") return;
      if (message.type === "ready") {
        const exports = exportNames(message.exports);
        if (exports !== undefined) {
          this.#settled(member, { type: "ready", worker: member.id, exports });
        }
      } else {
        const error = wireError(message.error);
        if (error !== undefined) {
          this.#settled(member, { type: "load_error", worker: member.id, error });
        }
      }
    } else if (message.type === "log") {
      if (typeof message.line !== "string") return;
      const member = typeof message.module === "number"
        ? group.members.get(message.module)
        : group.members.values().next().value;
      if (member !== undefined) {
        this.#options.notify({ type: "log", worker: member.id, line: message.line });
      }
    } else if (message.type === "exit") {
      if (typeof message.code !== "number") return;
      // Deno.exit or close() ends the whole Worker: the module that called it is gone, the
      // others are loaded again in a new one (or all are gone when it is unknown).
      const culprit = typeof message.module === "number"
        ? group.members.get(message.module)
        : undefined;
      const reason = `exited with code ${message.code}`;
      this.#drop(group);
      if (culprit === undefined) {
        for (const member of [...group.members.values()]) this.#remove(member, reason);
      } else {
        // The others move first: the gateway hears their `restarted` before the culprit's
        // `exit`, so a call it makes on hearing of the exit waits for their new Worker.
        const others = [...group.members.values()].filter((m) => m !== culprit);
        this.#move(group, others, `${culprit.request.moduleUrl} shared its Worker and ${reason}`);
        this.#remove(culprit, reason);
      }
    }
  }

  /**
   * Puts `member` in an open Worker of its kind that never imported its URL and is not held up
   * by a slow import, or in a new one.
   */
  #place(member: Member): void {
    const key = keyOf(member.request);
    const now = this.#clock.now();
    let group = [...this.#groups].find((g) =>
      g.open && g.key === key && !g.imported.has(member.request.moduleUrl) &&
      (g.admitting === undefined || now - g.admittedAt < ADMIT_PATIENCE_MS)
    );
    if (group === undefined) {
      const started = this.#start(key, member.request);
      if (typeof started === "string") return this.#remove(member, started);
      group = started;
    }
    member.group = group;
    member.state = "queued";
    group.members.set(member.id, member);
    group.queue.push(member);
    this.#admitNext(group);
  }
}
