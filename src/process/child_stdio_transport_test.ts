import assert from "node:assert/strict";
import { peerContract } from "../../test/support/peer_contract.ts";
import { MessagePeer, PeerGoneError } from "../protocol/message_peer.ts";
import { ChildStdioTransport } from "./child_stdio_transport.ts";

const CHILD = new URL("../../test/fixtures/peer/contract_child.ts", import.meta.url);

function contractChild(): ChildStdioTransport {
  return new ChildStdioTransport({
    argv: [Deno.execPath(), "run", "--no-prompt", "--allow-read", CHILD.href],
  });
}

for (
  const [how, reason] of [
    ["exit", /its process exited with code 3: contract child: leaving \(exit\)/],
    ["end", /the other side ended/],
    ["throw", /its process exited with code 1: .*thrown on purpose/s],
  ] as const
) {
  peerContract({
    name: `child stdio (the child leaves: ${how})`,
    make() {
      const transport = contractChild();
      return Promise.resolve({
        transport,
        close: async () => {
          transport.close();
          await transport.child.closed;
        },
      });
    },
    unsendable: { big: 1n },
    gone: { how, reason },
  });
}

Deno.test("ChildStdioTransport: closing it ends the child's whole group", async () => {
  const transport = contractChild();
  const peer = new MessagePeer(transport);
  assert.equal(await peer.request("echo", "up"), "up");
  const waiting = peer.request("wait", {});
  peer.close("stopped");
  await assert.rejects(waiting, PeerGoneError);
  const status = await transport.child.closed;
  assert.equal(status.signal, "SIGKILL");
});

Deno.test("ChildStdioTransport: a child that sends a message over the limit is ended, and the close names the limit", async () => {
  const transport = new ChildStdioTransport({
    argv: [Deno.execPath(), "run", "--no-prompt", "--allow-read", CHILD.href],
    maxMessageBytes: 1000,
  });
  const peer = new MessagePeer(transport);
  assert.equal(await peer.request("echo", "up"), "up");
  const error = await peer.request("big", { chars: 5000 }).then(
    () => assert.fail("an answer over the limit was read"),
    (e: unknown) => e,
  );
  assert.ok(error instanceof PeerGoneError, String(error));
  assert.match(error.message, /its process sent a message over the size limit of 1000 bytes/);
  const status = await transport.child.closed;
  assert.equal(status.signal, "SIGKILL");
});
