/**
 * Tool modules inside the shared tool host: a Worker (with its modules' Deno permissions) that
 * imports one or more modules and serves their calls over `postMessage`. The host puts modules
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
  exposeSignal,
  handleCall,
  type HostContext,
  redirectConsole,
  survivesStrayErrors,
} from "./tool_host_main.ts";
import { encodeMessage, type HostRequest, toWireError } from "./tool_host_protocol.ts";

/** Imports a module into the Worker: its id in the host, its URL and its own environment. */
export interface WorkerLoadMessage {
  type: "load";
  module: number;
  moduleUrl: string;
  /** Seen by the module through `Deno.env` before the process environment. */
  env: Record<string, string>;
}

/**
 * A call or a cancel for one module of the Worker, an unload (the Worker forgets the module and
 * aborts its calls), or a ping from the host's watchdog (answered with `pong`).
 */
export type WorkerRequest =
  | (HostRequest & { module: number })
  | { type: "unload"; module: number }
  | { type: "ping" };

/**
 * What a tool Worker posts: one protocol line of a module (`settled` on its `ready` or
 * `load_error`, `result` = the call id on a call's result), a console line (`module` when the
 * output came from a module's import or call), or that a module ended the Worker.
 */
export type WorkerPost =
  | { type: "line"; module: number; text: string; settled?: "ready" | "failed"; result?: number }
  | { type: "log"; module?: number; line: string }
  | { type: "exit"; module?: number; code: number }
  | { type: "pong" };

// Worker globals, typed here (the gateway's lib is the window one).
const scope = globalThis as unknown as {
  postMessage(message: WorkerPost): void;
  close(): void;
  onmessage: ((event: MessageEvent<WorkerLoadMessage | WorkerRequest>) => void) | null;
};

/** Which module's code runs now: set around each import and each call. */
const running = new AsyncLocalStorage<number>();

function post(message: WorkerPost): void {
  scope.postMessage(message);
}

/** The module whose code runs now, as an optional field. */
function current(): { module?: number } {
  const module = running.getStore();
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

const calls = new AsyncLocalStorage<AbortSignal>();
const contexts = new Map<number, HostContext>();

/** Sets up the Worker once, with the environment of its first module. */
function setUp(env: Record<string, string>): void {
  reportExit();
  overlayEnv(env);
  redirectConsole(logStream());
  survivesStrayErrors();
  exposeSignal(calls);
}

function load(message: WorkerLoadMessage): void {
  if (contexts.size === 0) setUp(message.env);
  const module = message.module;
  const loaded = running.run(
    module,
    () => import(message.moduleUrl) as Promise<Record<string, unknown>>,
  );
  loaded.catch(() => {}); // reported below; calls wait for it
  const context: HostContext = {
    loaded,
    controllers: new Map(),
    calls,
    send: (response) =>
      post({
        type: "line",
        module,
        text: encodeMessage(response).trim(),
        ...(response.type === "result" ? { result: response.id } : {}),
      }),
  };
  contexts.set(module, context);
  loaded.then(
    (exports) => {
      const functions = Object.keys(exports).filter((key) => typeof exports[key] === "function");
      post({
        type: "line",
        module,
        text: encodeMessage({ type: "ready", exports: functions }).trim(),
        settled: "ready",
      });
    },
    (thrown) =>
      post({
        type: "line",
        module,
        text: encodeMessage({ type: "load_error", error: toWireError(thrown) }).trim(),
        settled: "failed",
      }),
  );
}

scope.onmessage = (event) => {
  const message = event.data;
  if (message.type === "load") {
    load(message);
    return;
  }
  if (message.type === "ping") {
    post({ type: "pong" });
    return;
  }
  const context = contexts.get(message.module);
  if (context === undefined) return;
  if (message.type === "unload") {
    contexts.delete(message.module);
    for (const controller of context.controllers.values()) {
      controller.abort(new DOMException("The module was unloaded", "AbortError"));
    }
  } else if (message.type === "cancel") {
    context.controllers.get(message.id)?.abort(
      new DOMException("The gateway cancelled the call", "AbortError"),
    );
  } else {
    const { module: _module, ...call } = message;
    void running.run(message.module, () => handleCall(context, call));
  }
};
