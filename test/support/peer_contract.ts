/**
 * The contract every transport passes under a `MessagePeer`, in the way of hono's shared router
 * test: each transport's test calls `peerContract({ name, make })`, and the same cases run on
 * the in-memory pair, a unix socket, a Worker's port and a child's stdio, against the same
 * serving side (`test/fixtures/peer/contract_server.ts`).
 * @module
 */

import assert from "node:assert/strict";
import { type Answer, MessagePeer, PeerGoneError } from "../../src/protocol/message_peer.ts";
import { RpcCode, RpcError } from "../../src/protocol/json_rpc.ts";
import type { Transport } from "../../src/protocol/transport.ts";
import type { Leave } from "../fixtures/peer/contract_server.ts";

/** One connected transport whose other end serves the contract. */
export interface PeerSubject {
  /** This side's end. */
  transport: Transport;
  /** Ends what the subject started (a listener, a process, a Worker). */
  close(): Promise<void>;
}

/** Options of {@linkcode peerContract}. */
export interface PeerContractOptions {
  /** Names the transport in test names, e.g. "unix socket". */
  name: string;
  /** A fresh subject for each case. */
  make(): Promise<PeerSubject>;
  /** A value this transport cannot carry (a send of it throws). */
  unsendable: unknown;
  /** How the serving side leaves in the "gone" case, and what the reason then matches. */
  gone: { how: Leave; reason: RegExp };
}

/** A promise with its callbacks at hand. */
function answer(): Answer & { promise: Promise<unknown> } {
  const { promise, resolve, reject } = Promise.withResolvers<unknown>();
  promise.catch(() => {});
  return { promise, resolve, reject };
}

/** Registers the contract's cases as `Deno.test`s. */
export function peerContract(options: PeerContractOptions): void {
  const test = (name: string, body: (peer: MessagePeer) => Promise<void>) =>
    Deno.test(`${options.name}: ${name}`, async () => {
      const subject = await options.make();
      const peer = new MessagePeer(subject.transport);
      try {
        await body(peer);
      } finally {
        peer.close();
        await subject.close();
      }
    });

  test("a request is answered with its result, JSON intact", async (peer) => {
    const value = { text: "héllo\n\u2028", list: [1, 2.5, null, true], nested: { deep: ["x"] } };
    assert.deepEqual(await peer.request("echo", value), value);
    assert.equal(await peer.request("echo"), undefined);
  });

  test("answers reach their requests by id, whatever their order", async (peer) => {
    const held = [1, 2, 3].map((n) => peer.request("hold", { n }));
    assert.equal(await peer.request("release"), "released");
    assert.deepEqual(await Promise.all(held), [{ n: 1 }, { n: 2 }, { n: 3 }]);
    assert.equal(peer.pendingCount, 0);
  });

  test("an error answer rejects with the other side's code, message and data", async (peer) => {
    await assert.rejects(peer.request("fail"), (error: unknown) => {
      assert.ok(error instanceof RpcError);
      assert.equal(error.code, -32000);
      assert.equal(error.message, "refused on purpose");
      assert.deepEqual(error.data, { kind: "ToolError", detail: [1, 2] });
      return true;
    });
    assert.equal(await peer.request("echo", 1), 1, "the peer still serves");
  });

  test("a request for an unknown method is answered MethodNotFound", async (peer) => {
    await assert.rejects(
      peer.request("no_such_method"),
      (error: unknown) => error instanceof RpcError && error.code === RpcCode.MethodNotFound,
    );
  });

  test("notifications go both ways, in order with the answers", async (peer) => {
    const seen: string[] = [];
    peer.on("tick", (params) => seen.push(`tick ${(params as { i: number }).i}`));
    const pong = Promise.withResolvers<unknown>();
    peer.on("pong", (params) => pong.resolve(params));
    peer.notify("ping", { n: 7 });
    assert.deepEqual(await pong.promise, { n: 7 });
    const done = peer.request("tick", { count: 3 }).then((value) => seen.push(String(value)));
    await done;
    assert.deepEqual(seen, ["tick 0", "tick 1", "tick 2", "ticked"]);
  });

  test("a cancelled request aborts the other side's handler, whose answer still comes", async (peer) => {
    const cancelled = Promise.withResolvers<unknown>();
    peer.on("cancelled", (params) => cancelled.resolve(params));
    const waiting = answer();
    const id = peer.call("wait", {}, waiting);
    peer.cancel(id);
    assert.deepEqual(await cancelled.promise, { id });
    await assert.rejects(waiting.promise, /stopped: the caller cancelled/);
    assert.equal(peer.isPending(id), false);
  });

  test("a request given up by its signal rejects with its reason; its late answer is dropped", async (peer) => {
    const controller = new AbortController();
    const waiting = peer.request("wait", {}, { signal: controller.signal });
    controller.abort(new Error("gave up"));
    await assert.rejects(waiting, /gave up/);
    assert.equal(peer.pendingCount, 0);
    assert.equal(await peer.request("echo", "after"), "after");
  });

  test("a burst of 500 requests sent in one turn is answered whole", async (peer) => {
    const requests = Array.from({ length: 500 }, (_, i) => peer.request("echo", { i }));
    const answers = await Promise.all(requests);
    assert.deepEqual(answers.map((a) => (a as { i: number }).i), [...Array(500).keys()]);
    assert.equal(await peer.request("served"), 500);
  });

  test("a message of a megabyte travels whole", async (peer) => {
    const big = "é".repeat(512 * 1024);
    assert.equal(await peer.request("echo", big), big);
  });

  test("a message the transport cannot carry throws at the send; the peer stays usable", async (peer) => {
    const entry = answer();
    assert.throws(() => peer.call("echo", { value: options.unsendable }, entry));
    assert.equal(peer.pendingCount, 0);
    assert.equal(await peer.request("echo", 2), 2);
  });

  test("the other side gone: waiting requests reject with why, later ones at once", async (peer) => {
    const waiting = peer.request("wait", {});
    peer.notify("leave", { how: options.gone.how });
    await assert.rejects(waiting, (error: unknown) => {
      assert.ok(error instanceof PeerGoneError, String(error));
      assert.match(error.reason, options.gone.reason);
      return true;
    });
    assert.match(await peer.closed, options.gone.reason);
    assert.throws(() => peer.call("echo", 1, answer()), PeerGoneError);
    await assert.rejects(peer.request("echo", 1), PeerGoneError);
  });

  test("close() fails this side's waiting requests and ends the conversation", async (peer) => {
    const waiting = peer.request("wait", {});
    peer.close("stopped by the test");
    await assert.rejects(waiting, /stopped by the test/);
    assert.equal(await peer.closed, "stopped by the test");
  });
}
