/**
 * Tool modules inside the shared tool host: a Worker (with its modules' Deno permissions) that
 * imports one or more modules and serves their calls on its own connection to the gateway
 * (`worker_links.ts`: made before any module is imported, with a grant revoked right after; the
 * host's thread keeps only the modules' lifecycle, over `postMessage`). The host puts modules
 * with identical permissions and environment in one Worker (issue 12: a Worker costs ≈ 10 MB, a
 * module in an existing one far less), so each still has exactly its manifest's grants. Loaded
 * only by `shared_tool_host_main.ts` with `new Worker(…)`. A module sees what a module in its own
 * host process sees: `GATEWAY_TOOL_SETTINGS` and `GATEWAY_DATA_DIR` through `Deno.env`,
 * `globalThis.gatewaySignal`, and a console that goes to the gateway's log.
 * @module
 */

import { AsyncLocalStorage } from "node:async_hooks";
import { Writable } from "node:stream";
import {
  type CallScope,
  exposeSignal,
  handleCall,
  type HostContext,
  redirectConsole,
  survivesStrayErrors,
} from "./tool_host_main.ts";
import {
  type CallMessage,
  type HostRequest,
  readLinesFrom,
  SerialWriter,
  toWireError,
  type WireError,
} from "./tool_host_protocol.ts";

/** Imports a module into the Worker: its id in the host, its URL and its own environment. */
export interface WorkerLoadMessage {
  type: "load";
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
 * An unload (the Worker forgets the module and aborts its calls), or a ping from the host's
 * watchdog (answered with `pong`).
 */
export type WorkerRequest = { type: "unload"; module: number } | { type: "ping" };

/** Longest call line accepted from the gateway (arguments are JSON on one line). */
const MAX_REQUEST_LENGTH = 64 * 1024 * 1024;

/**
 * What a tool Worker posts to the host's thread: a module imported (`ready`, with its function
 * exports) or failed to (`load_error`), a console line (`module` when the output came from a
 * module's import or call), that a module ended the Worker, or a watchdog's `pong`. The host
 * checks each field and encodes what it passes on itself: module code runs in this thread and
 * can post too, so a post speaks only for the modules of its own Worker.
 */
export type WorkerPost =
  | { type: "ready"; module: number; exports: string[] }
  | { type: "load_error"; module: number; error: WireError }
  | { type: "log"; module?: number; line: string }
  | { type: "exit"; module?: number; code: number }
  | { type: "pong" };

// Worker globals, typed here (the gateway's lib is the window one).
const scope = globalThis as unknown as {
  postMessage(message: WorkerPost): void;
  close(): void;
  onmessage: ((event: MessageEvent<WorkerLoadMessage | WorkerRequest>) => void) | null;
};

/** Which module's code runs now and the signal of its call: set around each import and call. */
const callScope = new AsyncLocalStorage<CallScope>();

function post(message: WorkerPost): void {
  scope.postMessage(message);
}

/** The module whose code runs now, as an optional field. */
function current(): { module?: number } {
  const module = callScope.getStore()?.module;
  return module === undefined ? {} : { module };
}

/**
 * `Deno.exit` (and `process.exit`, which calls it) or `close()` ends the whole Worker,
 * silently; tell the host first, naming the module that did it, so its calls fail at once (as a
 * host process exit would) and the host restarts the others.
 */
function reportExit(): void {
  const exit = Deno.exit;
  Object.defineProperty(Deno, "exit", {
    value: (code?: number): never => {
      post({ type: "exit", code: code ?? 0, ...current() });
      return exit(code);
    },
    configurable: true,
    writable: true,
  });
  const close = scope.close.bind(globalThis);
  scope.close = () => {
    post({ type: "exit", code: 0, ...current() });
    close();
  };
}

/**
 * Overlays the modules' own variables on `Deno.env` (the process environment is shared). The
 * host only groups modules whose variables are identical, so one overlay serves them all.
 */
function overlayEnv(own: Record<string, string>): void {
  const env = Deno.env;
  const get = env.get.bind(env);
  const has = env.has.bind(env);
  const toObject = env.toObject.bind(env);
  Object.defineProperty(env, "get", {
    value: (key: string) => Object.hasOwn(own, key) ? own[key] : get(key),
    configurable: true,
  });
  Object.defineProperty(env, "has", {
    value: (key: string) => Object.hasOwn(own, key) || has(key),
    configurable: true,
  });
  Object.defineProperty(env, "toObject", {
    value: () => ({ ...toObject(), ...own }),
    configurable: true,
  });
}

/** A console stream that forwards each complete line to the gateway's log. */
function logStream(): Writable {
  let partial = "";
  return new Writable({
    decodeStrings: false,
    write(chunk: string | Uint8Array, _encoding, done) {
      const text = typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk);
      const lines = (partial + text).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) post({ type: "log", line, ...current() });
      done();
    },
  });
}

const contexts = new Map<number, HostContext>();

/** Sets up the Worker once, with the environment of its first module. */
function setUp(env: Record<string, string>): void {
  reportExit();
  overlayEnv(env);
  redirectConsole(logStream());
  survivesStrayErrors();
  exposeSignal(callScope);
}

/** The Worker's connection to the gateway, once made (on its first module). */
let link: SerialWriter | undefined;

/**
 * Connects to the gateway's socket with the grant the host gave for it, then revokes that
 * grant: the modules imported after never hold it. Calls arriving on the link go to their
 * module's context.
 */
async function connect(message: WorkerLoadMessage): Promise<SerialWriter> {
  const conn = await Deno.connect({ transport: "unix", path: message.socket });
  for (const descriptor of message.revoke) Deno.permissions.revokeSync(descriptor);
  const writer = new SerialWriter(conn, () => conn.close());
  readLinesFrom(conn, (line) => {
    let request: HostRequest & { worker: number };
    try {
      request = JSON.parse(line);
    } catch {
      return;
    }
    const context = contexts.get(request.worker);
    if (context === undefined) return;
    if (request.type === "cancel") {
      context.controllers.get(request.id)?.abort(
        new DOMException("The gateway cancelled the call", "AbortError"),
      );
    } else if (request.type === "call") {
      void handleCall(context, request as CallMessage);
    }
  }, { maxLineLength: MAX_REQUEST_LENGTH, bufferBytes: 4096 }).catch(() => {}).finally(() => {
    // The gateway closed the link (it stopped, or dropped this Worker): nothing can reach the
    // modules any more; the host ends with its own link.
    link = undefined;
  });
  return writer;
}

async function load(message: WorkerLoadMessage): Promise<void> {
  const module = message.module;
  const failed = (thrown: unknown) =>
    post({ type: "load_error", module, error: toWireError(thrown) });
  if (link === undefined) {
    if (contexts.size === 0) setUp(message.env);
    try {
      link = await connect(message);
    } catch (thrown) {
      return failed(new Error(`cannot reach the gateway: ${String(thrown)}`, { cause: thrown }));
    }
  }
  const writer = link;
  const loaded = callScope.run(
    { module },
    () => import(message.moduleUrl) as Promise<Record<string, unknown>>,
  );
  loaded.catch(() => {}); // reported below; calls wait for it
  const context: HostContext = {
    loaded,
    id: module,
    controllers: new Map(),
    calls: callScope,
    // A call's result goes to the gateway from here, on the Worker's own connection: no hop
    // through the host's thread (issue 12). `{"type":…}` → `{"worker":N,"type":…}`.
    send: (response) => writer.write(`{"worker":${module},${JSON.stringify(response).slice(1)}\n`),
  };
  contexts.set(module, context);
  writer.write(
    `${
      JSON.stringify({
        type: "join",
        worker: module,
        token: message.token,
        placement: message.placement,
      })
    }\n`,
  );
  loaded.then(
    (exports) => {
      const functions = Object.keys(exports).filter((key) => typeof exports[key] === "function");
      post({ type: "ready", module, exports: functions });
    },
    failed,
  );
}

/** Loads run one after another: the first one connects. */
let loading: Promise<void> = Promise.resolve();

scope.onmessage = (event) => {
  const message = event.data;
  if (message.type === "load") {
    // A load that throws (it reports its own failures) must not stop the ones after it.
    loading = loading.then(() => load(message)).catch((thrown) =>
      post({ type: "load_error", module: message.module, error: toWireError(thrown) })
    );
    return;
  }
  if (message.type === "ping") {
    post({ type: "pong" });
    return;
  }
  const context = contexts.get(message.module);
  if (context === undefined) return;
  contexts.delete(message.module);
  for (const controller of context.controllers.values()) {
    controller.abort(new DOMException("The module was unloaded", "AbortError"));
  }
};
