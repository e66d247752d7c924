/**
 * The shared tool host: one `deno run --unstable-worker-options` process in which tool modules
 * run in Workers with their own Deno permissions (issue 12: one runtime instead of one process of
 * ≈ 64 MB per module). Modules with full permissions (the default) and the same environment share
 * a Worker (≈ 10 MB each saved): such a module can reach anything another could anyway. A module
 * with restricted permissions gets a Worker, a JavaScript realm, of its own, so nothing it runs
 * touches another module's globals, calls or lifecycle. Run by `SharedToolHost`; an entry point,
 * so it may `Deno.exit`. (Over 400 lines: the grouping rules share one state.)
 *
 * The modules' lifecycle travels on the host's own link to the gateway (`worker_links.ts`): its
 * stdin brings one line, the gateway's socket and this host's token, before any Worker exists,
 * and is closed; the thread connects and presents the token, then takes `load` and `unload`
 * there and answers `ready`, `load_error`, `log`, `exit` and `restarted` with a `worker` field
 * (the module's id). The process's stdout and stderr are shared with every module: the gateway
 * logs them as untrusted text and takes nothing from them. What a Worker posts here is checked
 * field by field and encoded anew, and speaks only for the modules of that Worker.
 *
 * Failures stay with their module (RELIABILITY MOD-01…06): a Worker imports its modules one at
 * a time, and modules waiting behind an import that takes over `ADMIT_PATIENCE_MS` (busy or
 * stuck) move to another Worker; a module that calls `Deno.exit` gets `exit`, and the modules
 * sharing its Worker are loaded again in a new one, their calls in flight failing as
 * `worker_restarted`, as when a module is stopped with calls in flight (a call that ignored
 * its abort may hold the Worker); a Worker that stops answering pings while it imports a module
 * (`BLOCKED_MS`) hands its other modules to a new one. A module unloaded with no call in flight
 * (a reload, a removed file) is forgotten and the others keep their state; timers it started
 * run on until its Worker ends (`tools.NAME.isolate` gives a module a process of its own).
 *
 * Calls and results do not cross this thread (issue 12: the hop cost ≈ 0.1 ms of CPU per call):
 * each Worker connects to the gateway's unix socket (in a private 0700 directory it is granted
 * until it has connected) and joins it with the token of each module it takes. So only the
 * gateway knows which calls are unanswered: this host tells it `restarted` (naming the module's
 * placement, its count of Workers) when a module leaves a Worker, and hears from it whether an
 * unloaded module still had calls waiting (`busy`).
 * @module
 */

import { withSocketGrant } from "./socket_grant.ts";
import { isWireError, readLinesFrom, SerialWriter, type WireError } from "./tool_host_protocol.ts";
import type { WorkerLoadMessage, WorkerPost } from "./tool_worker_main.ts";

/** Longest request line accepted from the gateway (a load names paths and grants). */
const MAX_REQUEST_LENGTH = 1024 * 1024;
/** Longest line accepted on stdin (the link line). */
const MAX_LINK_LENGTH = 64 * 1024;

/** Gateway → shared host. */
export type SharedHostRequest =
  | {
    type: "load";
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
  /** `busy`: the gateway still waits on calls of the module (one ignored its abort). */
  | { type: "unload"; worker: number; busy?: boolean };

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

/**
 * How long a module's import may hold up the modules waiting for the same Worker before they
 * take another one (a module busy at import blocks its whole Worker).
 */
const ADMIT_PATIENCE_MS = 500;
/**
 * How long a Worker importing a module may leave a ping unanswered before it counts as blocked
 * (a busy loop at import): the modules already in it then move to a new Worker, leaving the
 * importing one alone.
 */
const BLOCKED_MS = 1_000;
/** How often a Worker that is importing a module is pinged. */
const PING_MS = 250;

type LoadRequest = Extract<SharedHostRequest, { type: "load" }>;

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
  worker: Worker;
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
  patience: ReturnType<typeof setTimeout> | undefined;
  /** Pings the Worker while it imports a module; undefined otherwise. */
  watchdog: ReturnType<typeof setInterval> | undefined;
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

/** Every field any {@linkcode WorkerPost} has. */
type AnyPost = {
  type: WorkerPost["type"];
  module: number;
  exports: string[];
  error: WireError;
  line: string;
  code: number;
};

/** The exports a Worker reported, if they are a list of names. */
function exportNames(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((name) => typeof name === "string")
    ? value
    : undefined;
}

/** A Worker's error report reduced to the fields the gateway reads, if it has their shape. */
function wireError(value: unknown): WireError | undefined {
  if (!isWireError(value)) return undefined;
  const error: WireError = { message: value.message };
  const { name, stack } = value as { name?: unknown; stack?: unknown };
  if (typeof name === "string") error.name = name;
  if (typeof stack === "string") error.stack = stack;
  return error;
}

/** The first line the gateway writes on stdin: its socket, and this host's token. */
interface LinkLine {
  type: "link";
  socket: string;
  token: string;
}

function parseLink(line: string): LinkLine | undefined {
  try {
    const value = JSON.parse(line);
    return value?.type === "link" && typeof value.socket === "string" &&
        typeof value.token === "string"
      ? value as LinkLine
      : undefined;
  } catch {
    return undefined;
  }
}

/** Reads stdin to its end (the gateway closes it after one line) and answers the link line. */
async function readLink(): Promise<LinkLine | undefined> {
  let link: LinkLine | undefined;
  await readLinesFrom(Deno.stdin, (line) => {
    link ??= parseLink(line);
  }, { maxLineLength: MAX_LINK_LENGTH }).catch(() => {});
  return link;
}

function parse(line: string): SharedHostRequest | undefined {
  try {
    const value = JSON.parse(line);
    return typeof value === "object" && value !== null && typeof value.worker === "number" &&
        typeof value.type === "string"
      ? value as SharedHostRequest
      : undefined;
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  const link = await readLink();
  if (link === undefined) {
    console.error("shared tool host: no link line on stdin; the gateway is gone");
    Deno.exit(1);
  }
  let conn: Deno.UnixConn;
  try {
    conn = await Deno.connect({ transport: "unix", path: link.socket });
  } catch (error) {
    console.error(`shared tool host: cannot reach the gateway: ${String(error)}`);
    Deno.exit(1);
  }
  const control = new SerialWriter(conn, () => {});
  control.write(`${JSON.stringify({ type: "host", token: link.token })}\n`);
  /** Sends one lifecycle message to the gateway, encoded here whatever a Worker posted. */
  const notify = (message: SharedHostNotice) => control.write(`${JSON.stringify(message)}\n`);

  const groups = new Set<Group>();
  const members = new Map<number, Member>();

  /** Fails the calls `member` has in a Worker that is gone, as `worker_restarted`. */
  const failInFlight = (member: Member, why: string) => {
    if (member.placement === 0) return;
    notify({
      type: "restarted",
      worker: member.id,
      placement: member.placement,
      message: `worker_restarted: the call did not finish: ${why}; the module was loaded ` +
        "again, so calling it again works",
    });
  };

  const drop = (group: Group) => {
    groups.delete(group);
    clearTimeout(group.patience);
    clearInterval(group.watchdog);
    // Its connection to the gateway closes with it; a result it was writing is cut short
    // there and dropped (its call fails on `restarted` or `exit`).
    group.worker.terminate();
  };

  /** The module is gone for good: the gateway hears `exit` (its calls fail there). */
  const remove = (member: Member, reason: string) => {
    members.delete(member.id);
    const group = member.group;
    if (group !== undefined) {
      group.members.delete(member.id);
      group.queue = group.queue.filter((m) => m !== member);
      if (group.admitting === member) group.admitting = undefined;
    }
    notify({ type: "exit", worker: member.id, reason });
  };

  /** Loads `moving` (modules of `group`) again in another Worker; their calls in flight fail. */
  const move = (group: Group, moving: Member[], why: string) => {
    for (const member of moving) {
      group.members.delete(member.id);
      group.queue = group.queue.filter((m) => m !== member);
      failInFlight(member, why);
      member.group = undefined;
      place(member);
    }
  };

  /** Ends `group`'s Worker and loads its remaining modules again elsewhere. */
  const restart = (group: Group, why: string) => {
    drop(group);
    move(group, [...group.members.values()], why);
  };

  /** While `group` imports, a Worker that stops answering is blocked by that import. */
  const watch = (group: Group) => {
    group.answeredAt = performance.now();
    group.watchdog ??= setInterval(() => {
      const culprit = group.admitting;
      if (culprit === undefined) {
        clearInterval(group.watchdog);
        group.watchdog = undefined;
      } else if (performance.now() - group.answeredAt > BLOCKED_MS) {
        clearInterval(group.watchdog);
        group.watchdog = undefined;
        group.open = false;
        const others = [...group.members.values()].filter((m) => m !== culprit);
        move(group, others, `${culprit.request.moduleUrl}, loaded into its Worker, blocks it`);
      } else {
        group.worker.postMessage({ type: "ping" });
      }
    }, PING_MS);
  };

  const admitNext = (group: Group) => {
    if (group.admitting !== undefined) return;
    const member = group.queue.shift();
    if (member === undefined) return;
    group.admitting = member;
    group.admittedAt = performance.now();
    member.state = "importing";
    group.imported.add(member.request.moduleUrl);
    const first: WorkerLoadMessage = {
      type: "load",
      module: member.id,
      moduleUrl: member.request.moduleUrl,
      env: member.request.env,
      socket: member.request.socket,
      token: member.request.token,
      placement: ++member.placement,
      revoke: group.revoke,
    };
    group.worker.postMessage(first);
    watch(group);
    // A module busy or stuck at import holds its Worker: the modules waiting behind it take
    // another one, and this Worker takes no newcomers.
    clearTimeout(group.patience);
    group.patience = setTimeout(() => {
      if (group.admitting !== member || group.queue.length === 0) return;
      group.open = false;
      for (const waiting of group.queue.splice(0)) {
        group.members.delete(waiting.id);
        waiting.group = undefined;
        place(waiting);
      }
    }, ADMIT_PATIENCE_MS);
  };

  const settled = (
    member: Member,
    outcome: SharedHostNotice & { type: "ready" | "load_error" },
  ) => {
    const group = member.group;
    if (group?.admitting === member) {
      clearTimeout(group.patience);
      group.admitting = undefined;
    }
    member.state = outcome.type === "ready" ? "ready" : "failed";
    // A module loaded again after its Worker restarted was announced already.
    if (!(member.announced && outcome.type === "ready")) notify(outcome);
    member.announced = true;
    if (group !== undefined) admitNext(group);
  };

  const start = (key: string, request: LoadRequest): Group | string => {
    let worker: Worker;
    const { permissions, revoke } = typeof request.permissions === "string"
      ? { permissions: request.permissions, revoke: [] }
      : withSocketGrant(request.permissions, request.socket);
    try {
      worker = new Worker(new URL("./tool_worker_main.ts", import.meta.url), {
        type: "module",
        deno: { permissions },
      });
    } catch (thrown) {
      return `cannot start its Worker: ${String(thrown)}`;
    }
    const group: Group = {
      key,
      worker,
      revoke,
      members: new Map(),
      imported: new Set(),
      queue: [],
      admitting: undefined,
      admittedAt: 0,
      open: true,
      patience: undefined,
      watchdog: undefined,
      answeredAt: performance.now(),
    };
    groups.add(group);
    worker.onmessage = (event: MessageEvent<unknown>) => {
      if (!groups.has(group)) return; // terminated
      // Module code shares the Worker's thread and may post too: a post is a `WorkerPost` only
      // once each field is checked, and speaks only for modules of this Worker.
      if (typeof event.data !== "object" || event.data === null) return;
      const message = event.data as { [K in keyof AnyPost]?: unknown };
      if (message.type === "ready" || message.type === "load_error") {
        const member = typeof message.module === "number"
          ? group.members.get(message.module)
          : undefined;
        if (member === undefined || member.state !== "importing") return;
        if (message.type === "ready") {
          const exports = exportNames(message.exports);
          if (exports !== undefined) settled(member, { type: "ready", worker: member.id, exports });
        } else {
          const error = wireError(message.error);
          if (error !== undefined) {
            settled(member, { type: "load_error", worker: member.id, error });
          }
        }
      } else if (message.type === "pong") {
        group.answeredAt = performance.now();
      } else if (message.type === "log") {
        if (typeof message.line !== "string") return;
        const member = typeof message.module === "number"
          ? group.members.get(message.module)
          : group.members.values().next().value;
        if (member !== undefined) notify({ type: "log", worker: member.id, line: message.line });
      } else if (message.type === "exit") {
        if (typeof message.code !== "number") return;
        // Deno.exit or close() ends the whole Worker: the module that called it is gone, the
        // others are loaded again in a new one (or all are gone when it is unknown).
        const culprit = typeof message.module === "number"
          ? group.members.get(message.module)
          : undefined;
        const reason = `exited with code ${message.code}`;
        if (culprit === undefined) {
          drop(group);
          for (const member of [...group.members.values()]) remove(member, reason);
        } else {
          // The others move first: the gateway hears their `restarted` before the culprit's
          // `exit`, so a call it makes on hearing of the exit waits for their new Worker.
          drop(group);
          const others = [...group.members.values()].filter((m) => m !== culprit);
          move(group, others, `${culprit.request.moduleUrl} shared its Worker and ${reason}`);
          remove(culprit, reason);
        }
      }
    };
    worker.onerror = (event) => {
      event.preventDefault();
      drop(group);
      for (const member of [...group.members.values()]) {
        remove(member, `failed: ${event.message}`);
      }
    };
    return group;
  };

  /**
   * Puts `member` in an open Worker of its kind that never imported its URL and is not held up
   * by a slow import, or in a new one.
   */
  const place = (member: Member) => {
    const key = keyOf(member.request);
    const now = performance.now();
    let group = [...groups].find((g) =>
      g.open && g.key === key && !g.imported.has(member.request.moduleUrl) &&
      (g.admitting === undefined || now - g.admittedAt < ADMIT_PATIENCE_MS)
    );
    if (group === undefined) {
      const started = start(key, member.request);
      if (typeof started === "string") return remove(member, started);
      group = started;
    }
    member.group = group;
    member.state = "queued";
    group.members.set(member.id, member);
    group.queue.push(member);
    admitNext(group);
  };

  /**
   * The Worker forgets the module; the others keep running with their state. A module unloaded
   * with calls still in flight (one ignored its abort: its code may hold the Worker) takes the
   * Worker with it, and the others move to a new one. A Worker left with no module ends.
   */
  const unload = (member: Member, stuck: boolean) => {
    const group = member.group;
    const { state } = member;
    remove(member, "was unloaded");
    if (group === undefined) return;
    if (group.members.size === 0) return drop(group);
    if (stuck) {
      return restart(
        group,
        `${member.request.moduleUrl}, which shared its Worker, was stopped with calls in flight`,
      );
    }
    if (state !== "queued") group.worker.postMessage({ type: "unload", module: member.id });
    admitNext(group);
  };

  readLinesFrom(conn, (line) => {
    const request = parse(line);
    if (request === undefined) {
      console.error(
        `shared tool host: ignored a line that is not a request: ${line.slice(0, 200)}`,
      );
    } else if (request.type === "load") {
      const member: Member = {
        id: request.worker,
        request,
        state: "queued",
        announced: false,
        placement: 0,
        group: undefined,
      };
      members.set(member.id, member);
      place(member);
    } else {
      const member = members.get(request.worker);
      if (member !== undefined) unload(member, request.busy === true);
    }
  }, { maxLineLength: MAX_REQUEST_LENGTH }).catch(() => {}).finally(() => {
    // The link closed: the gateway stopped or died.
    for (const group of groups) group.worker.terminate();
    Deno.exit(0);
  });
}

if (import.meta.main) await main();
