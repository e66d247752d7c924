import assert from "node:assert/strict";
import { peerContract } from "../../test/support/peer_contract.ts";
import { serveContract } from "../../test/fixtures/peer/contract_server.ts";
import { InMemoryTransport } from "./in_memory_transport.ts";
import { MessagePeer } from "./message_peer.ts";

peerContract({
  name: "in-memory pair",
  make() {
    const [client, server] = InMemoryTransport.pair();
    const peer = new MessagePeer(server);
    serveContract(peer, (how) => {
      if (how === "end") peer.end();
      else peer.close("the serving side left");
    });
    return Promise.resolve({ transport: client, close: () => Promise.resolve() });
  },
  unsendable: 10n,
  gone: { how: "exit", reason: /closed by the other side/ },
});

Deno.test("InMemoryTransport delivers a microtask later, as a JSON copy", async () => {
  const [a, b] = InMemoryTransport.pair();
  const seen: unknown[] = [];
  b.start({ message: (message) => seen.push(message), close: () => {} });
  const sent = { method: "m", params: { when: new Date(0), skipped: undefined } };
  a.send(sent);
  assert.deepEqual(seen, []);
  await Promise.resolve();
  assert.deepEqual(seen, [{ method: "m", params: { when: "1970-01-01T00:00:00.000Z" } }]);
  assert.throws(() => a.send({ big: 1n }), TypeError);
});

Deno.test("InMemoryTransport: what was sent before a close arrives, then the close", async () => {
  const [a, b] = InMemoryTransport.pair();
  const events: string[] = [];
  b.start({
    message: (message) => events.push(`message ${message.method}`),
    close: (reason) => events.push(`close: ${reason}`),
  });
  const closedA = Promise.withResolvers<string>();
  a.start({ message: () => {}, close: (reason) => closedA.resolve(reason) });
  a.send({ method: "last" });
  a.close("done");
  a.send({ method: "dropped" });
  assert.equal(await closedA.promise, "done");
  assert.deepEqual(events, ["message last", "close: closed by the other side"]);
});
