import assert from "node:assert/strict";
import { DeferredTransport } from "./deferred_transport.ts";
import { MessagePeer } from "./message_peer.ts";
import type { Transport, TransportEvents, WireMessage } from "./transport.ts";

/** A wire that takes messages up to 100 characters of JSON, as a size-limited wire would. */
class SmallWire implements Transport {
  readonly sent: WireMessage[] = [];
  #events: TransportEvents | undefined;
  start(events: TransportEvents): void {
    this.#events = events;
  }
  send(message: WireMessage): void {
    const length = JSON.stringify(message).length;
    if (length > 100) throw new RangeError(`The message is ${length} bytes, over the limit`);
    this.sent.push(message);
  }
  close(reason = "closed"): void {
    this.#events?.close(reason);
  }
  flushed(): Promise<void> {
    return Promise.resolve();
  }
}

Deno.test("DeferredTransport fails a request that waited and cannot cross the wire, and sends the rest", async () => {
  const deferred = new DeferredTransport();
  const peer = new MessagePeer(deferred);
  const big = peer.request("call", { args: "x".repeat(200) });
  const small = peer.request("call", { args: "y" });
  const wire = new SmallWire();
  deferred.attach(wire);
  await assert.rejects(big, /Cannot send "call": The message is \d+ bytes, over the limit/);
  assert.deepEqual(wire.sent.map((m) => m.params), [{ args: "y" }], "what followed went out");
  assert.equal(peer.pendingCount, 1, "the small request waits for its answer");
  peer.close();
  await assert.rejects(small);
});
