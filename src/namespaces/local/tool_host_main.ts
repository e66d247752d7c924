/**
 * Child side of a tool host: imports one tool module and serves calls to its exports on the
 * gateway's socket, which it joins with the token its stdin brings first; the same link says
 * whether the import worked (see `tool_host_protocol.ts`, `worker_links.ts`). Run by `ToolHost`
 * as `deno run … tool_host_main.ts <module URL>`; this is an entry point, so it may `Deno.exit`.
 *
 * What a tool module sees:
 * - `console.*` writes to stderr; the gateway logs stderr and stdout as the module's output
 *   (it reads no message from either).
 * - `GATEWAY_TOOL_SETTINGS` (JSON of `tools.<name>.settings`) and `GATEWAY_DATA_DIR` in the env.
 * - `globalThis.gatewaySignal`: the `AbortSignal` of the call in progress (undefined outside a
 *   call). It aborts when the call times out or the run is cancelled; a tool that ignores it for
 *   2 s gets its host restarted. Tools take at most one parameter, so the signal is not an
 *   argument; it follows the call through `await` (AsyncLocalStorage).
 *
 * @example A tool that honours cancellation
 * ```ts ignore
 * declare global {
 *   var gatewaySignal: AbortSignal | undefined;
 * }
 *
 * // Fetches a page as text.
 * export async function page(args: { url: string }): Promise<string> {
 *   const response = await fetch(args.url, { signal: globalThis.gatewaySignal });
 *   return await response.text();
 * }
 * ```
 * @module
 */

import { AsyncLocalStorage } from "node:async_hooks";
import { Console } from "node:console";
import process from "node:process";
import {
  type CallMessage,
  type HostResponse,
  parseRequest,
  readLinesFrom,
  type ResultMessage,
  SerialWriter,
  toWireError,
} from "./tool_host_protocol.ts";
import { messageOf } from "../../protocol/message_of.ts";

/** Longest request line accepted from the gateway (arguments are JSON on one line). */
const MAX_REQUEST_LENGTH = 64 * 1024 * 1024;
/** Longest link line accepted on stdin. */
const MAX_LINK_LENGTH = 64 * 1024;

/**
 * What the code running now belongs to, carried through `await` by one `AsyncLocalStorage`: the
 * signal of the call in progress, and in a Worker of the shared host the module whose code runs
 * (its console lines and its exit name it). One store, not one per purpose: each nested
 * `AsyncLocalStorage.run` costs a call microseconds (issue 12).
 */
export interface CallScope {
  signal?: AbortSignal;
  /** The module's id in the shared host. */
  module?: number;
}

/** Everything one call needs from the host (a process or a Worker of the shared host). */
export interface HostContext {
  loaded: Promise<Record<string, unknown>>;
  /** The module's id in the shared host, put in each call's scope (absent in a host process). */
  id?: number;
  controllers: Map<number, AbortController>;
  calls: AsyncLocalStorage<CallScope>;
  /** Delivers one message to the gateway, whole. */
  send: (message: HostResponse) => void;
}

/**
 * Points every console method at `stream` (default stderr), in place (modules may hold
 * `console`): the gateway logs it with the module's label.
 */
export function redirectConsole(stream: NodeJS.WritableStream = process.stderr): void {
  const stderrConsole = new Console({ stdout: stream, stderr: stream });
  const target = console as unknown as Record<string, unknown>;
  const source = stderrConsole as unknown as Record<string, unknown>;
  for (const key of Object.keys(target)) {
    const method = source[key];
    if (typeof method === "function") target[key] = method.bind(stderrConsole);
  }
}

/** Logs stray rejections and errors instead of letting them end the host (and every call). */
export function survivesStrayErrors(): void {
  globalThis.addEventListener("unhandledrejection", (event) => {
    event.preventDefault();
    console.error("tool module: unhandled promise rejection:", event.reason);
  });
  globalThis.addEventListener("error", (event) => {
    event.preventDefault();
    console.error("tool module: uncaught error:", event.error);
  });
}

/**
 * Runs one call and sends its result (or why it failed) through `context.send`. A tool's value
 * is awaited only when it is a promise (or thenable): a synchronous tool's result is written
 * without another turn of promises (issue 12).
 */
export async function handleCall(context: HostContext, message: CallMessage): Promise<void> {
  const controller = new AbortController();
  context.controllers.set(message.id, controller);
  let result: ResultMessage;
  try {
    // Awaited even once loaded: a tool then runs from a microtask, on a short stack. Run from
    // the read loop, each error of a burst of failing calls carried the loop's frames too, and
    // the host's memory during the burst grew by half again (tool_host_test).
    const exports = await context.loaded;
    const fn = exports[message.tool];
    if (typeof fn !== "function") {
      throw new TypeError(`Cannot call "${message.tool}": the module exports no such function`);
    }
    const scope: CallScope = context.id === undefined
      ? { signal: controller.signal }
      : { signal: controller.signal, module: context.id };
    let value: unknown = context.calls.run(
      scope,
      () => "args" in message ? fn(message.args) : fn(),
    );
    if (isThenable(value)) value = await value;
    result = value === undefined
      ? { type: "result", id: message.id, ok: true }
      : { type: "result", id: message.id, ok: true, value };
  } catch (thrown) {
    result = { type: "result", id: message.id, ok: false, error: toWireError(thrown) };
  } finally {
    context.controllers.delete(message.id);
  }
  try {
    context.send(result);
  } catch (thrown) {
    const reason = messageOf(thrown);
    context.send({
      type: "result",
      id: message.id,
      ok: false,
      error: { message: `The result of "${message.tool}" cannot be sent as JSON: ${reason}` },
    });
  }
}

/** Whether `value` is awaited as a promise (`await` adopts any object with a `then` method). */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === "object" || typeof value === "function") && value !== null &&
    typeof (value as { then?: unknown }).then === "function";
}

/** Defines `globalThis.gatewaySignal`: the signal of the call in progress. */
export function exposeSignal(calls: AsyncLocalStorage<CallScope>): void {
  Object.defineProperty(globalThis, "gatewaySignal", {
    get: () => calls.getStore()?.signal,
    configurable: true,
  });
}

/** The first line the gateway sends: where to take calls, and the grants to drop then. */
interface LinkMessage {
  type: "link";
  socket: string;
  token: string;
  revoke: Deno.PermissionDescriptor[];
}

function parseLink(line: string): LinkMessage | undefined {
  try {
    const value = JSON.parse(line);
    return value?.type === "link" && typeof value.socket === "string" &&
        typeof value.token === "string" && Array.isArray(value.revoke)
      ? value as LinkMessage
      : undefined;
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  const moduleUrl = Deno.args[0];
  if (moduleUrl === undefined) {
    console.error("usage: tool_host_main.ts <module URL>");
    Deno.exit(2);
  }
  redirectConsole();
  survivesStrayErrors();
  const calls = new AsyncLocalStorage<CallScope>();
  exposeSignal(calls);
  const controllers = new Map<number, AbortController>();

  // stdin carries the link, then nothing: its closing (the gateway stopped or died) ends the
  // host even while the module is still importing.
  const link = Promise.withResolvers<LinkMessage>();
  readLinesFrom(Deno.stdin, (line) => {
    const message = parseLink(line);
    if (message === undefined) {
      console.error(`tool host: ignored a line that is not a link: ${line.slice(0, 200)}`);
    } else link.resolve(message);
  }, { maxLineLength: MAX_LINK_LENGTH }).finally(() => {
    for (const controller of controllers.values()) controller.abort();
    Deno.exit(0);
  });

  // Calls and results travel on the gateway's socket (issue 12: no stdio streams per call),
  // joined with the token from stdin; the grant to reach it is revoked before the import.
  const { socket, token, revoke } = await link.promise;
  let conn: Deno.UnixConn;
  try {
    conn = await Deno.connect({ transport: "unix", path: socket });
  } catch (thrown) {
    console.error(`tool host: error: cannot reach the gateway: ${messageOf(thrown)}`);
    Deno.exit(1);
  }
  for (const descriptor of revoke) Deno.permissions.revokeSync(descriptor);
  const writer = new SerialWriter(conn, () => {});
  writer.write(`${JSON.stringify({ type: "join", worker: 0, token, placement: 1 })}\n`);
  /** Sends one message on the link (`{"type":…}` → `{"worker":0,"type":…}`). */
  const send = (response: HostResponse) =>
    writer.write(`{"worker":0,${JSON.stringify(response).slice(1)}\n`);

  const loaded = import(moduleUrl) as Promise<Record<string, unknown>>;
  loaded.catch(() => {}); // reported below; calls wait for it
  const context: HostContext = { loaded, controllers, calls, send };
  readLinesFrom(conn, (line) => {
    const request = parseRequest(line);
    if (request === undefined) return;
    if (request.type === "cancel") {
      context.controllers.get(request.id)?.abort(
        new DOMException("The gateway cancelled the call", "AbortError"),
      );
    } else {
      void handleCall(context, request);
    }
  }, { maxLineLength: MAX_REQUEST_LENGTH, bufferBytes: 4096 }).catch(() => {});

  let module: Record<string, unknown>;
  try {
    module = await loaded;
  } catch (thrown) {
    send({ type: "load_error", error: toWireError(thrown) });
    await writer.idle();
    Deno.exit(1);
  }
  const exports = Object.keys(module).filter((key) => typeof module[key] === "function");
  send({ type: "ready", exports });
}

if (import.meta.main) await main();
