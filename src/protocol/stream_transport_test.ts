import assert from "node:assert/strict";
import { join } from "node:path";
import { peerContract } from "../../test/support/peer_contract.ts";
import { serveContract } from "../../test/fixtures/peer/contract_server.ts";
import { MessagePeer } from "./message_peer.ts";
import { StreamTransport } from "./stream_transport.ts";

/** A listener in a private directory and a connected pair of streams over it. */
async function socketPair(
  options: { server?: ConstructorParameters<typeof StreamTransport>[1] } = {},
): Promise<{ client: Deno.UnixConn; server: StreamTransport; close(): Promise<void> }> {
  const dir = await Deno.makeTempDir({ prefix: "gateway-stream-" });
  const path = join(dir, "s");
  const listener = Deno.listen({ transport: "unix", path });
  const accepted = listener.accept();
  const client = await Deno.connect({ transport: "unix", path });
  const server = StreamTransport.fromConn(await accepted, options.server);
  listener.close();
  return {
    client,
    server,
    close: async () => {
      server.close();
      await server.readDone;
      await Deno.remove(dir, { recursive: true });
    },
  };
}

peerContract({
  name: "unix socket",
  async make() {
    const pair = await socketPair();
    const peer = new MessagePeer(pair.server);
    serveContract(peer, (how) => {
      if (how === "end") peer.end();
      else peer.close("the serving side left");
    });
    const transport = StreamTransport.fromConn(pair.client);
    return {
      transport,
      close: async () => {
        transport.close();
        await transport.readDone;
        await pair.close();
      },
    };
  },
  unsendable: { big: 1n },
  gone: { how: "exit", reason: /closed by the other side/ },
});

Deno.test("StreamTransport closes on a line over its limit, and drops lines that are not JSON", async () => {
  const dropped: string[] = [];
  const pair = await socketPair({
    server: { maxMessageBytes: 64, onDropped: (why) => dropped.push(why) },
  });
  const messages: unknown[] = [];
  const closed = Promise.withResolvers<string>();
  pair.server.start({ message: (m) => messages.push(m), close: closed.resolve });
  const encoder = new TextEncoder();
  await pair.client.write(encoder.encode('not json\n[1]\n{"method":"ok"}\n'));
  await pair.client.write(encoder.encode(`{"method":"${"x".repeat(100)}`));
  assert.equal(await closed.promise, "a message over the size limit");
  assert.deepEqual(messages, [{ method: "ok" }]);
  assert.deepEqual(dropped, [
    "a line that is not JSON",
    "a line that is not a JSON object",
    "a message over the size limit (closing)",
  ]);
  pair.client.close();
  await pair.close();
});

Deno.test("StreamTransport refuses to send a message over its limit, naming the wire", async () => {
  const pair = await socketPair({ server: { maxMessageBytes: 100, wireName: "the test channel" } });
  assert.throws(
    () => pair.server.send({ method: "call", params: "é".repeat(60) }),
    /The "call" message is 1\d\d bytes, over the test channel's limit of 100 bytes/,
  );
  pair.client.close();
  await pair.close();
});

Deno.test("StreamTransport keeps lines whole and in order under a burst, past partial writes", async () => {
  const pair = await socketPair();
  const client = StreamTransport.fromConn(pair.client);
  const got: number[] = [];
  const all = Promise.withResolvers<void>();
  client.start({
    message: (m) => {
      got.push((m as { n: number }).n);
      if (got.length === 2000) all.resolve();
    },
    close: () => {},
  });
  const payload = "y".repeat(3000);
  for (let n = 0; n < 2000; n++) pair.server.send({ n, payload });
  await pair.server.flushed();
  await all.promise;
  assert.deepEqual(got, [...Array(2000).keys()]);
  client.close();
  await pair.close();
});
