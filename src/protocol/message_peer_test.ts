import assert from "node:assert/strict";
import { type Answer, MessagePeer, PeerGoneError } from "./message_peer.ts";
import { InMemoryTransport } from "./in_memory_transport.ts";
import { RpcCode, RpcError } from "./json_rpc.ts";
import type { Transport, TransportEvents, WireMessage } from "./transport.ts";

/** A transport the test drives by hand: what the peer sends, and a way to deliver to it. */
class HandTransport implements Transport {
  events: TransportEvents | undefined;
  readonly sent: WireMessage[] = [];
  start(events: TransportEvents): void {
    this.events = events;
  }
  send(message: WireMessage): void {
    if (JSON.stringify(message) === undefined) throw new TypeError("not JSON");
    this.sent.push(message);
  }
  close(reason = "closed"): void {
    this.events?.close(reason);
  }
  flushed(): Promise<void> {
    return Promise.resolve();
  }
  deliver(message: WireMessage): void {
    this.events!.message(message);
  }
}

/** A peer on a {@linkcode HandTransport}, once it has started (a microtask after it is made). */
async function handPeer(
  options?: ConstructorParameters<typeof MessagePeer>[1],
): Promise<[MessagePeer, HandTransport]> {
  const transport = new HandTransport();
  const peer = new MessagePeer(transport, options);
  await Promise.resolve();
  return [peer, transport];
}

function entry(): Answer & { settled: unknown[] } {
  const settled: unknown[] = [];
  return {
    settled,
    resolve: (v) => settled.push(["ok", v]),
    reject: (e) => settled.push(["error", e]),
  };
}

Deno.test("MessagePeer.call() writes the request in the caller's turn and hands the answer straight over", async () => {
  const [peer, transport] = await handPeer();
  const answer = entry();
  const id = peer.call("get", { key: "a" }, answer);
  assert.deepEqual(transport.sent, [{ id, method: "get", params: { key: "a" } }]);
  transport.deliver({ id, result: 42 });
  assert.deepEqual(answer.settled, [["ok", 42]], "no promise between the answer and its entry");
  transport.deliver({ id, result: 43 });
  assert.equal(answer.settled.length, 1, "a second answer to the same id is dropped");
});

Deno.test("MessagePeer.handle() answers a value that is not a promise in the turn the request came", async () => {
  const [peer, transport] = await handPeer();
  peer.handle("double", (params) => (params as number) * 2);
  transport.deliver({ id: 1, method: "double", params: 21 });
  assert.deepEqual(transport.sent, [{ id: 1, result: 42 }]);
  assert.equal(peer.servingCount, 0);
});

Deno.test("MessagePeer.handle() answers a value that cannot be sent with an error naming the method", async () => {
  const [peer, transport] = await handPeer();
  peer.handle("big", () => Promise.resolve(10n));
  transport.deliver({ id: 3, method: "big" });
  await Promise.resolve();
  await Promise.resolve();
  const [answer] = transport.sent as { id: number; error: { message: string } }[];
  assert.equal(answer?.id, 3);
  assert.match(answer!.error.message, /Cannot send the answer to "big": /);
});

Deno.test("MessagePeer answers an error that cannot be sent with one that can, naming the method", async () => {
  const [peer, transport] = await handPeer();
  const unsendable = () => new RpcError(RpcCode.InvalidParams, "bad key", { n: 10n } as never);
  peer.handle("now", () => {
    throw unsendable();
  });
  peer.handle("later", () => Promise.reject(unsendable()));
  peer.serve("served", (_params, request) => request.fail(unsendable()));
  transport.deliver({ id: 1, method: "now" });
  transport.deliver({ id: 2, method: "later" });
  transport.deliver({ id: 3, method: "served" });
  await Promise.resolve();
  await Promise.resolve();
  const answers = transport.sent as { id: number; error: { code: number; message: string } }[];
  assert.deepEqual(answers.map((a) => a.id).sort(), [1, 2, 3], "every request is answered");
  for (const answer of answers) {
    assert.equal(answer.error.code, RpcCode.InvalidParams);
    assert.match(answer.error.message, /^bad key \(its error cannot be sent whole: /);
  }
  assert.equal(peer.servingCount, 0);
});

Deno.test("MessagePeer.serve() lets the handler answer first and work after; a cancel aborts its signal", async () => {
  const [peer, transport] = await handPeer({
    cancelReason: () => new Error("cancelled by the test"),
  });
  const seen: string[] = [];
  peer.serve("slow", (_params, request) => {
    request.signal.addEventListener("abort", () => seen.push(String(request.signal.reason)));
  });
  transport.deliver({ id: 9, method: "slow" });
  assert.equal(peer.servingCount, 1);
  transport.deliver({ method: "$/cancel", params: { id: 9 } });
  assert.deepEqual(seen, ["Error: cancelled by the test"]);
});

Deno.test("MessagePeer: requests served when the other side goes are aborted, waiting ones fail", async () => {
  const [peer, transport] = await handPeer({
    goneError: (reason) => new RangeError(`gone: ${reason}`),
  });
  let aborted: unknown;
  peer.serve("slow", (_params, request) => {
    request.signal.addEventListener("abort", () => (aborted = request.signal.reason));
  });
  transport.deliver({ id: 1, method: "slow" });
  const answer = entry();
  peer.call("mine", undefined, answer);
  transport.close("its process exited with code 3");
  assert.ok(aborted instanceof DOMException);
  assert.match((aborted as DOMException).message, /exited with code 3/);
  const [kind, error] = answer.settled[0] as [string, Error];
  assert.equal(kind, "error");
  assert.ok(
    error instanceof RangeError && error.message === "gone: its process exited with code 3",
  );
  assert.throws(() => peer.call("after", undefined, entry()), RangeError);
});

Deno.test("MessagePeer with holdPendingOnGone leaves waiting requests to its owner", async () => {
  const [peer, transport] = await handPeer({ holdPendingOnGone: true });
  const answer = entry();
  const id = peer.call("mine", undefined, answer);
  transport.close("closed");
  assert.equal(peer.isPending(id), true);
  assert.deepEqual(answer.settled, []);
  peer.failPending(new Error("the host exited with code 1 during the call"));
  assert.equal(peer.pendingCount, 0);
  assert.match(String(answer.settled[0]), /exited with code 1/);
});

Deno.test("MessagePeer.end() tells the other side, which closes and takes nothing after", async () => {
  const [a, b] = InMemoryTransport.pair();
  const left = new MessagePeer(a);
  const right = new MessagePeer(b);
  const heard: unknown[] = [];
  right.on("note", (params) => heard.push(params));
  left.notify("note", 1);
  left.end();
  left.notify("note", 2);
  assert.equal(await right.closed, "the other side ended");
  assert.equal(await left.closed, "ended");
  assert.deepEqual(heard, [1]);
});

Deno.test("MessagePeer reports a listener's throw as an uncaught error and reads on", async () => {
  const [peer, transport] = await handPeer();
  const reported: unknown[] = [];
  const onError = (event: ErrorEvent) => {
    event.preventDefault();
    reported.push(event.error);
  };
  globalThis.addEventListener("error", onError);
  try {
    const seen: number[] = [];
    peer.on("n", (params) => {
      if (params === 1) throw new Error("listener failed");
      seen.push(params as number);
    });
    transport.deliver({ method: "n", params: 1 });
    transport.deliver({ method: "n", params: 2 });
    assert.deepEqual(seen, [2]);
    assert.match(String(reported[0]), /listener failed/);
  } finally {
    globalThis.removeEventListener("error", onError);
  }
});

Deno.test("MessagePeer drops malformed messages, telling onDropped why", async () => {
  const dropped: string[] = [];
  const [peer, transport] = await handPeer({ onDropped: (why) => dropped.push(why) });
  transport.deliver({ method: 5 });
  transport.deliver({ result: 1 });
  transport.deliver({ method: "nobody" });
  transport.deliver({ id: { x: 1 }, method: "m" });
  assert.equal(dropped.length, 4);
  assert.equal(peer.pendingCount, 0);
});

Deno.test("MessagePeer with jsonRpc writes JSON-RPC 2.0 messages", async () => {
  const [peer, transport] = await handPeer({ jsonRpc: true });
  peer.notify("run.output", { text: "hi" });
  peer.handle("ping", () => "pong");
  transport.deliver({ jsonrpc: "2.0", id: 4, method: "ping" });
  assert.deepEqual(transport.sent, [
    { jsonrpc: "2.0", method: "run.output", params: { text: "hi" } },
    { jsonrpc: "2.0", id: 4, result: "pong" },
  ]);
});

Deno.test("MessagePeer.request() rejects with PeerGoneError by default once the other side is gone", async () => {
  const [a, b] = InMemoryTransport.pair();
  const peer = new MessagePeer(a);
  const waiting = peer.request("never");
  b.close("bye");
  await assert.rejects(waiting, PeerGoneError);
  assert.equal(await peer.closed, "closed by the other side");
});
