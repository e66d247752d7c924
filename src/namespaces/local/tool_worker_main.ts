/**
 * One tool module inside the shared tool host: a Worker (with the module's own Deno
 * permissions) that imports the module and serves its calls over `postMessage`. Loaded only by
 * `shared_tool_host_main.ts` with `new Worker(…)`. The module sees what a module in its own host
 * process sees: `GATEWAY_TOOL_SETTINGS` and `GATEWAY_DATA_DIR` through `Deno.env`,
 * `globalThis.gatewaySignal`, and a console that goes to the gateway's log.
 * @module
 */

import { AsyncLocalStorage } from "node:async_hooks";
import { Writable } from "node:stream";
import {
  exposeSignal,
  handleCall,
  type HostContext,
  redirectConsole,
  survivesStrayErrors,
} from "./tool_host_main.ts";
import { parseRequest, toWireError, writeWhole } from "./tool_host_protocol.ts";

/** The first message a tool Worker receives: what to import and its own environment. */
export interface WorkerLoadMessage {
  type: "load";
  /** The Worker's id in the gateway's messages. */
  worker: number;
  /** The host's stdout lock (see `writeWhole`): the Worker writes its results itself. */
  output: SharedArrayBuffer;
  moduleUrl: string;
  /** Seen by the module through `Deno.env` before the process environment. */
  env: Record<string, string>;
}

/**
 * What a tool Worker posts to the host: a console line, or that the module exits (protocol
 * messages it writes to stdout itself).
 */
export type WorkerPost =
  | { type: "log"; line: string }
  | { type: "exit"; code: number };

// Worker globals, typed here (the gateway's lib is the window one).
const scope = globalThis as unknown as {
  postMessage(message: WorkerPost): void;
  close(): void;
  /** The load message, then requests as the JSON text the gateway sent. */
  onmessage: ((event: MessageEvent<WorkerLoadMessage | string>) => void) | null;
};

function post(message: WorkerPost): void {
  scope.postMessage(message);
}

/**
 * `Deno.exit` (and `process.exit`, which calls it) or `close()` ends only this Worker, silently;
 * tell the host first so the module's calls fail at once, as a host process exit would.
 */
function reportExit(): void {
  const exit = Deno.exit;
  Object.defineProperty(Deno, "exit", {
    value: (code?: number): never => {
      post({ type: "exit", code: code ?? 0 });
      return exit(code);
    },
    configurable: true,
    writable: true,
  });
  const close = scope.close.bind(globalThis);
  scope.close = () => {
    post({ type: "exit", code: 0 });
    close();
  };
}

/** Overlays the module's own variables on `Deno.env` (the process environment is shared). */
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
      for (const line of lines) post({ type: "log", line });
      done();
    },
  });
}

function start(load: WorkerLoadMessage): void {
  const output = new Int32Array(load.output);
  const encoder = new TextEncoder();
  reportExit();
  overlayEnv(load.env);
  redirectConsole(logStream());
  survivesStrayErrors();
  const calls = new AsyncLocalStorage<AbortSignal>();
  exposeSignal(calls);
  const loaded = import(load.moduleUrl) as Promise<Record<string, unknown>>;
  loaded.catch(() => {}); // reported below; calls never arrive before "ready"
  const context: HostContext = {
    loaded,
    controllers: new Map(),
    calls,
    // `{"type":…}` → `{"worker":N,"type":…}`, written whole under the host's lock: no hop
    // through the host's thread (issue 12).
    send: (message) =>
      writeWhole(
        output,
        load.worker,
        encoder.encode(`\n{"worker":${load.worker},${JSON.stringify(message).slice(1)}\n`),
      ),
  };
  scope.onmessage = (event) => {
    const request = typeof event.data === "string" ? parseRequest(event.data) : undefined;
    if (request === undefined) {
      post({ type: "log", line: `tool worker: ignored a message that is not a request` });
    } else if (request.type === "cancel") {
      context.controllers.get(request.id)?.abort(
        new DOMException("The gateway cancelled the call", "AbortError"),
      );
    } else if (request.type === "call") {
      void handleCall(context, request);
    }
  };
  loaded.then(
    (module) => {
      const exports = Object.keys(module).filter((key) => typeof module[key] === "function");
      context.send({ type: "ready", exports });
    },
    (thrown) => context.send({ type: "load_error", error: toWireError(thrown) }),
  );
}

scope.onmessage = (event) => {
  if (typeof event.data !== "string" && event.data.type === "load") start(event.data);
};
