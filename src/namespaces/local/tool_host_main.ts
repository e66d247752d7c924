/**
 * Child side of a tool host: imports one tool module and serves calls to its exports on the
 * gateway's socket, which it joins with the token its stdin brings first; the same
 * conversation says whether the import worked (`tool_host_link.ts`). Run by `ToolHost`
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
  type IncomingRequest,
  MessagePeer,
  type MessagePeerOptions,
  type WireError,
} from "../../protocol/message_peer.ts";
import { StreamTransport } from "../../protocol/stream_transport.ts";
import { TransportMux } from "../../protocol/transport_mux.ts";
import { messageOf } from "../../protocol/message_of.ts";
import { type CallParams, isLinkParams, type LinkParams, MODULE_FIELD } from "./tool_host_link.ts";

/** Longest request accepted from the gateway (arguments are JSON in one message). */
export const MAX_REQUEST_LENGTH = 64 * 1024 * 1024;
/** How long a host whose module failed to import waits for the gateway to read why. */
const LOAD_ERROR_LINGER_MS = 5_000;

/** Longest link line accepted on stdin. */
const MAX_LINK_LENGTH = 64 * 1024;

/**
 * What the code running now belongs to, carried through `await` by one `AsyncLocalStorage`: the
 * signal of the call in progress, and in a Worker of the shared host the module whose code runs
 * (its console lines and its exit name it). One store, not one per purpose: each nested
 * `AsyncLocalStorage.run` costs a call microseconds.
 */
export interface CallScope {
  signal?: AbortSignal;
  /** The module's id in the shared host. */
  module?: number;
}

/** Everything one call needs from the host (a process or a Worker of the shared host). */
export interface ModuleContext {
  loaded: Promise<Record<string, unknown>>;
  /** The module's id in the shared host, put in each call's scope (absent in a host process). */
  id?: number;
  calls: AsyncLocalStorage<CallScope>;
}

/** Turns anything thrown into the error the gateway reads: its message, name and stack. */
export function toWireError(thrown: unknown): WireError {
  if (thrown instanceof Error) {
    const data: { name: string; stack?: string } = { name: thrown.name };
    if (thrown.stack !== undefined) data.stack = thrown.stack;
    return { message: thrown.message, data };
  }
  return { message: String(thrown) };
}

/** An error told to the gateway by its message alone (no stack of the host's). */
class HostError {
  readonly message: string;
  constructor(message: string) {
    this.message = message;
  }
  toString(): string {
    return this.message;
  }
}

/** How a module's conversation with the gateway is set up, in a process or a Worker. */
export const MODULE_PEER_OPTIONS: MessagePeerOptions = {
  wireError: toWireError,
  cancelReason: () => new DOMException("The gateway cancelled the call", "AbortError"),
};

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

/** Serves the module's `call` requests on `peer`. */
export function serveCalls(peer: MessagePeer, context: ModuleContext): void {
  peer.serve("call", (params, request) => {
    void handleCall(context, params as CallParams, request);
  });
}

/**
 * Runs one call and answers it (or says why it failed). A tool's value is awaited only when it
 * is a promise (or thenable): a synchronous tool's result is written without another turn of
 * promises.
 */
export async function handleCall(
  context: ModuleContext,
  message: CallParams,
  request: IncomingRequest,
): Promise<void> {
  let value: unknown;
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
      ? { signal: request.signal }
      : { signal: request.signal, module: context.id };
    value = context.calls.run(scope, () => "args" in message ? fn(message.args) : fn());
    if (isThenable(value)) value = await value;
  } catch (thrown) {
    request.fail(thrown);
    return;
  }
  try {
    request.reply(value);
  } catch (thrown) {
    request.fail(
      new HostError(`The result of "${message.tool}" cannot be sent as JSON: ${messageOf(thrown)}`),
    );
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

  // stdin carries the link, then nothing: its closing (the gateway stopped or died) ends the
  // host even while the module is still importing.
  const link = Promise.withResolvers<LinkParams>();
  const stdin = new MessagePeer(
    new StreamTransport({
      readable: Deno.stdin,
      writable: { write: (bytes) => Promise.resolve(bytes.length) },
    }, { maxMessageBytes: MAX_LINK_LENGTH }),
    { onDropped: (why) => console.error(`tool host: ignored ${why} on stdin`) },
  );
  stdin.on("link", (params) => {
    if (isLinkParams(params)) link.resolve(params);
    else console.error("tool host: ignored a link message without its socket and token");
  });
  stdin.closed.then(() => Deno.exit(0));

  // Calls and results travel on the gateway's socket, joined with the token from stdin; the
  // grant to reach it is revoked before the import.
  const { socket, token, revoke } = await link.promise;
  let conn: Deno.UnixConn;
  try {
    conn = await Deno.connect({ transport: "unix", path: socket });
  } catch (thrown) {
    console.error(`tool host: error: cannot reach the gateway: ${messageOf(thrown)}`);
    Deno.exit(1);
  }
  for (const descriptor of revoke ?? []) Deno.permissions.revokeSync(descriptor);
  const mux = new TransportMux(
    StreamTransport.fromConn(conn, {
      maxMessageBytes: MAX_REQUEST_LENGTH,
      oversized: "drop",
      readBufferBytes: 4096,
    }),
    MODULE_FIELD,
    { control: () => {}, close: () => {} },
  );
  mux.sendControl({ method: "join", params: { worker: 0, token, placement: 1 } });
  const gateway = new MessagePeer(mux.channel(0), MODULE_PEER_OPTIONS);

  const loaded = import(moduleUrl) as Promise<Record<string, unknown>>;
  loaded.catch(() => {}); // reported below; calls wait for it
  serveCalls(gateway, { loaded, calls });

  let module: Record<string, unknown>;
  try {
    module = await loaded;
  } catch (thrown) {
    gateway.notify("load_error", { error: toWireError(thrown) });
    await gateway.flushed();
    // The gateway closes the link once it has read why; exiting first could leave the reason
    // unread (this process's exit may be seen before its connection is accepted). A gateway
    // that does not answer is not waited for long.
    await Promise.race([
      gateway.closed,
      new Promise((resolve) => setTimeout(resolve, LOAD_ERROR_LINGER_MS)),
    ]);
    Deno.exit(1);
  }
  const exports = Object.keys(module).filter((key) => typeof module[key] === "function");
  gateway.notify("ready", { exports });
}

if (import.meta.main) await main();
