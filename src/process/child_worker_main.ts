/**
 * Runs a Web Worker entry module in a child process of its own (`WorkerClient`): gives the
 * entry the worker scope it expects — `postMessage` and `message` events — over a
 * `MessagePeer` on stdin and stdout. Each request's message is the event's data with the
 * request's id in `id`; the entry's `postMessage` of a message with that `id` answers it.
 * Exiting the process gives all of its memory back, which a terminated Worker inside the server
 * does not. An entry point: `deno run child_worker_main.ts ENTRY_URL`; it exits when stdin
 * closes (the server stopped or died).
 * @module
 */

import { MessagePeer } from "../protocol/message_peer.ts";
import { StreamTransport } from "../protocol/stream_transport.ts";

async function main(): Promise<void> {
  const entry = Deno.args[0];
  if (entry === undefined) {
    console.error("child_worker_main: usage: child_worker_main.ts ENTRY_URL");
    Deno.exit(2);
  }
  // stdout carries the messages: the entry's console output goes to stderr instead.
  for (const method of ["log", "info", "debug"] as const) console[method] = console.error;
  /** The peer, once the entry is loaded. */
  const parent: { peer?: MessagePeer } = {};
  Object.defineProperty(globalThis, "postMessage", {
    value: (message: unknown) => {
      const id = (message as { id?: unknown } | null)?.id;
      if (typeof id === "number") parent.peer?.answer(id, message);
    },
    configurable: true,
    writable: true,
  });
  await import(entry);
  // Requests wait in the pipe until the entry is loaded and listening.
  const peer = new MessagePeer(
    new StreamTransport({ readable: Deno.stdin, writable: Deno.stdout }, { guardLines: true }),
  );
  parent.peer = peer;
  const scope = globalThis as unknown as { onmessage?: unknown };
  peer.serve("message", (params, request) => {
    const event = new MessageEvent("message", {
      data: { ...(params as Record<string, unknown>), id: request.id },
    });
    try {
      // Both ways a worker entry listens: `addEventListener("message", …)` and `onmessage = …`.
      globalThis.dispatchEvent(event);
      if (typeof scope.onmessage === "function") scope.onmessage(event);
    } catch (error) {
      // As in a Worker: a throwing handler is an uncaught error, which ends this process.
      reportError(error);
    }
  });
  await peer.closed;
  Deno.exit(0);
}

if (import.meta.main) await main();
