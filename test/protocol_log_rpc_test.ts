/**
 * The protocol log and the inspector's methods over the gateway's WebSocket, against the real
 * server-everything: the kept messages, one message whole, live pushes while watched, clearing,
 * a namespace's resources and prompts; secrets never leave in a logged message; clear errors
 * for a namespace without a log and for a message no longer kept.
 * @module
 */

import assert from "node:assert/strict";
import type { ProtocolEntry } from "../src/namespaces/mcp/protocol_log.ts";
import { withHarness } from "./support/gateway_harness.ts";
import { realServerBin } from "./fixtures/mcp/mcp_test_servers.ts";
import { pollUntil } from "./support/poll_until.ts";

const SECRET = "gw-test-secret-4f9c2a7e";

const TOOL = `/** Returns its argument. */
export function echo(args: { v: number }): number {
  return args.v;
}
`;

Deno.test("the protocol log over RPC: kept, whole, live, cleared, and secrets masked", async () => {
  const config = {
    port: 0,
    mcpServers: {
      everything: {
        command: "node",
        args: [realServerBin("everything")],
        env: { UPSTREAM_TOKEN: "${env:GW_TEST_UPSTREAM_TOKEN}" },
      },
    },
  };
  await withHarness({
    files: { "gateway.json": JSON.stringify(config), "tools/local.ts": TOOL },
    env: { GW_TEST_UPSTREAM_TOKEN: SECRET },
  }, async (gw) => {
    await gw.server();
    const client = await gw.client();
    const pushed: ProtocolEntry[] = [];
    const frames: string[] = [];
    client.onNotification((n) => {
      frames.push(JSON.stringify(n));
      if (n.method === "event.protocol") {
        pushed.push(...(n.params as { entries: ProtocolEntry[] }).entries);
      }
    });
    try {
      await pollUntil("everything to be ready", async () => {
        const ns = await client.request<{ namespaces: { name: string; status: string }[] }>(
          "namespaces",
        );
        return ns.namespaces.find((n) => n.name === "everything")?.status === "ready";
      });
      const log = (await client.request<{ entries: ProtocolEntry[] }>("protocol.log", {
        namespace: "everything",
      })).entries;
      // The first connect asks the server's era (server/discover, which this 2025 server
      // refuses) and then makes the 2025 handshake: the log opens with both, in that order.
      assert.deepEqual(
        log.slice(0, 4).map((e) => `${e.direction} ${e.kind} ${e.method}`),
        [
          "sent request server/discover",
          "received error server/discover",
          "sent request initialize",
          "received result initialize",
        ],
      );

      // The attacker's move: a tool whose answer carries a configured secret (get-env prints
      // the server's environment) must not hand it to a dashboard through the log.
      await client.request("protocol.watch", { namespace: "everything" });
      const run = await client.request<{ ok: boolean }>("exec", {
        source: "await tools.everything.get_env()",
        check: false,
      });
      assert.equal(run.ok, true);
      const answer = await pollUntil(
        "the get-env answer pushed live",
        () =>
          pushed.find((e) =>
            e.kind === "result" && e.method === "tools/call" && e.target === "get-env"
          ),
      );
      const whole = await client.request<{ text: string; truncated: boolean }>(
        "protocol.message",
        { namespace: "everything", seq: answer.seq },
      );
      assert.equal(whole.truncated, false);
      assert.match(whole.text, /UPSTREAM_TOKEN/);
      assert.match(whole.text, /\[REDACTED\]/);
      assert.ok(!whole.text.includes(SECRET), "the message is masked");
      assert.ok(!frames.some((f) => f.includes(SECRET)), "no pushed entry carries the secret");

      // Unwatched: nothing more is pushed; the log still keeps it.
      await client.request("protocol.unwatch", { namespace: "everything" });
      const before = pushed.length;
      await client.request("exec", { source: "await tools.everything.echo({ message: 'x' })" });
      const kept = await client.request<{ entries: ProtocolEntry[] }>("protocol.log", {
        namespace: "everything",
        after: answer.seq,
      });
      assert.ok(kept.entries.some((e) => e.target === "echo"), "the echo call is kept");
      assert.equal(pushed.length, before, "nothing pushed after unwatch");

      // Resources and prompts of one namespace.
      const resources = await client.request<{ resources: unknown[]; templates: unknown[] }>(
        "namespace.resources",
        { namespace: "everything" },
      );
      assert.ok(resources.resources.length > 0 && resources.templates.length > 0);
      const prompts = await client.request<{ prompts: { name: string }[]; capability: boolean }>(
        "namespace.prompts",
        { namespace: "everything" },
      );
      assert.equal(prompts.capability, true);
      assert.ok(prompts.prompts.some((p) => p.name === "args-prompt"));
      const tools = await client.request<
        { tools: { namespace: string; name: string; toolIdentifier: string }[] }
      >("upstream.tools");
      assert.equal(
        tools.tools.find((t) => t.namespace === "everything" && t.name === "get-sum")
          ?.toolIdentifier,
        "get_sum",
      );

      // Clear empties the log; numbering goes on; an old seq says it is gone.
      await client.request("protocol.clear", { namespace: "everything" });
      const cleared = await client.request<{ entries: unknown[] }>("protocol.log", {
        namespace: "everything",
      });
      assert.deepEqual(cleared.entries, []);
      await assert.rejects(
        client.request("protocol.message", { namespace: "everything", seq: answer.seq }),
        new RegExp(`Message ${answer.seq} of "everything" is no longer kept`),
      );
      // Only MCP namespaces have a log, prompts or resources; the error names the ones that do.
      await assert.rejects(
        client.request("protocol.log", { namespace: "local" }),
        /Namespace "local" is a local namespace: only MCP servers have a protocol log \(MCP namespaces: everything\)/,
      );
      await assert.rejects(
        client.request("namespace.prompts", { namespace: "nope" }),
        /Unknown namespace "nope" \(known: .*everything/,
      );
    } finally {
      await client.close();
    }
  });
});
