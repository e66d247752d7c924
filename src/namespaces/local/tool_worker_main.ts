/**
 * Tool modules inside the shared tool host: a Worker (with its modules' Deno permissions) that
 * imports one or more modules and serves their calls on its own connection to the gateway
 * (`worker_links.ts`: made before any module is imported, with a grant revoked right after; the
 * host's thread keeps only the modules' lifecycle, through a `MessagePeer` on this Worker's
 * port). The host puts modules with identical permissions and environment in one Worker (a
 * Worker costs far more memory than a module in an existing one), so each still has exactly
 * its manifest's grants. Loaded only by `shared_tool_host_main.ts` with `new Worker(…)`. A
 * module sees what a module in its own host process sees: `GATEWAY_TOOL_SETTINGS` and `GATEWAY_DATA_DIR` through `Deno.env`,
 * `globalThis.gatewaySignal`, and a console that goes to the gateway's log.
 * @module
 */

import { AsyncLocalStorage } from "node:async_hooks";
import { Writable } from "node:stream";
import {
  type CallScope,
  exposeSignal,
  MAX_REQUEST_LENGTH,
  MODULE_PEER_OPTIONS,
  redirectConsole,
  serveCalls,
  survivesStrayErrors,
  toWireError,
} from "./tool_host_main.ts";
import { MODULE_FIELD } from "./tool_host_link.ts";
import type { WorkerLoadMessage, WorkerPost } from "./shared_host_modules.ts";
import { LineFramer } from "../../protocol/line_framer.ts";
import { MessagePeer } from "../../protocol/message_peer.ts";
import { StreamTransport } from "../../protocol/stream_transport.ts";
import { TransportMux } from "../../protocol/transport_mux.ts";
import { type MessagePortLike, WorkerPortTransport } from "../../protocol/worker_port_transport.ts";

// Worker globals, typed here (the gateway's lib is the window one).
const scope = globalThis as unknown as MessagePortLike & { close(): void };

/** The host's thread, over this Worker's port: loads and unloads in, lifecycle out. */
const host = new MessagePeer(new WorkerPortTransport(scope));

/** Which module's code runs now and the signal of its call: set around each import and call. */
const callScope = new AsyncLocalStorage<CallScope>();

/** Tells the host's thread about a module (its `type` is the notification's method). */
function post(message: WorkerPost): void {
  const { type, ...params } = message;
  host.notify(type, params);
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
  const lines = new LineFramer((line) => post({ type: "log", line, ...current() }));
  return new Writable({
    decodeStrings: false,
    write(chunk: string | Uint8Array, _encoding, done) {
      if (typeof chunk === "string") lines.pushText(chunk);
      else lines.push(chunk);
      done();
    },
  });
}

/** Each module's conversation with the gateway, by module id. */
const modules = new Map<number, MessagePeer>();

/** Sets up the Worker once, with the environment of its first module. */
function setUp(env: Record<string, string>): void {
  reportExit();
  overlayEnv(env);
  redirectConsole(logStream());
  survivesStrayErrors();
  exposeSignal(callScope);
}

/** The Worker's connection to the gateway, once made (on its first module). */
let link: TransportMux | undefined;

/**
 * Connects to the gateway's socket with the grant the host gave for it, then revokes that
 * grant: the modules imported after never hold it.
 */
async function connect(message: WorkerLoadMessage): Promise<TransportMux> {
  const conn = await Deno.connect({ transport: "unix", path: message.socket });
  for (const descriptor of message.revoke) Deno.permissions.revokeSync(descriptor);
  return new TransportMux(
    StreamTransport.fromConn(conn, {
      maxMessageBytes: MAX_REQUEST_LENGTH,
      oversized: "drop",
      readBufferBytes: 4096,
    }),
    MODULE_FIELD,
    {
      control: () => {},
      // The gateway closed the link (it stopped, or dropped this Worker): nothing can reach
      // the modules any more; the host ends with its own link.
      close: () => (link = undefined),
    },
  );
}

async function load(message: WorkerLoadMessage): Promise<void> {
  const module = message.module;
  const failed = (thrown: unknown) =>
    post({ type: "load_error", module, error: toWireError(thrown) });
  if (link === undefined) {
    if (modules.size === 0) setUp(message.env);
    try {
      link = await connect(message);
    } catch (thrown) {
      return failed(new Error(`cannot reach the gateway: ${String(thrown)}`, { cause: thrown }));
    }
  }
  const loaded = callScope.run(
    { module },
    () => import(message.moduleUrl) as Promise<Record<string, unknown>>,
  );
  loaded.catch(() => {}); // reported below; calls wait for it
  // A call's result goes to the gateway from here, on the Worker's own connection: no hop
  // through the host's thread.
  modules.get(module)?.close("the module was loaded again");
  const gateway = new MessagePeer(link.channel(module), MODULE_PEER_OPTIONS);
  modules.set(module, gateway);
  serveCalls(gateway, { loaded, id: module, calls: callScope });
  link.sendControl({
    method: "join",
    params: { worker: module, token: message.token, placement: message.placement },
  });
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

host.on("load", (params) => {
  const message = params as WorkerLoadMessage;
  // A load that throws (it reports its own failures) must not stop the ones after it.
  loading = loading.then(() => load(message)).catch((thrown) =>
    post({ type: "load_error", module: message.module, error: toWireError(thrown) })
  );
});

// The host's watchdog: an answer says this Worker's thread is not blocked.
host.handle("ping", () => "pong");

host.on("unload", (params) => {
  const module = (params as { module: number }).module;
  const gateway = modules.get(module);
  if (gateway === undefined) return;
  modules.delete(module);
  // Its calls' signals abort; the gateway hears nothing more of it.
  gateway.close("the module was unloaded");
});
