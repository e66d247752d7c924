/**
 * End-to-end over the server's unix socket, the CLI's wire: `POST /rpc` answers in JSON lines —
 * a streamed run's output before its document, events for as long as a subscription stays
 * open — a client that goes away takes its run with it, the socket is this user's only and
 * takes no browser requests, and `/rpc` on the TCP port wants the token like every route.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { GatewayHttpClient } from "../src/client/gateway_http_client.ts";
import type { RunDocument } from "../src/protocol/run_document.ts";
import { withHarness } from "./support/gateway_harness.ts";
import { pollUntil } from "./support/poll_until.ts";

Deno.test(
  "the server's socket answers /rpc in JSON lines and cancels the run of a client that leaves",
  {
    ignore: Deno.build.os === "windows",
  },
  async (t) => {
    await withHarness({ files: { "gateway.json": "{}" } }, async (gw) => {
      const { port, token } = await gw.server();
      const state = JSON.parse(await Deno.readTextFile(join(gw.dataDir, "server.json")));
      const socket = state.socket as string;
      const client = () => new GatewayHttpClient({ transport: "unix", path: socket });

      await t.step("the socket is in the data dir, mode 0600", () => {
        assert.equal(socket, join(gw.dataDir, "server.sock"));
        const info = Deno.lstatSync(socket);
        assert.equal(info.isSocket, true);
        assert.equal((info.mode ?? 0) & 0o777, 0o600);
      });

      await t.step("a streamed run's output arrives before its document", async () => {
        const rpc = client();
        let streamed = "";
        rpc.onNotification((n) => {
          if (n.method === "run.output") streamed += (n.params as { text: string }).text;
        });
        const run = await rpc.request<RunDocument>("exec", {
          source: 'console.log("one"); console.log("two"); 3',
          check: false,
          stream: true,
        });
        // Every line was streamed before the document came.
        assert.equal(streamed, "one\ntwo\n");
        assert.equal(run.result, 3);
        await rpc.close();
      });

      await t.step(
        "a subscription's stream carries events until the client closes it",
        async () => {
          const events = client();
          const seen: string[] = [];
          events.onNotification((n) => seen.push(n.method));
          assert.deepEqual(await events.request("events.subscribe"), { subscribed: true });
          const other = client();
          await other.request("exec", { source: "1", check: false });
          await other.close();
          await pollUntil("the run's events", () => seen.includes("event.run.finished"));
          await events.close();
        },
      );

      await t.step("a client that goes away cancels its run", async () => {
        const leaving = client();
        const watcher = client();
        const started = Promise.withResolvers<string>();
        watcher.onNotification((n) => {
          if (n.method === "event.run.started") {
            started.resolve((n.params as { runId: string }).runId);
          }
        });
        await watcher.request("events.subscribe");
        leaving.request("exec", { source: "await new Promise(() => {})", check: false })
          .catch(() => undefined);
        const runId = await started.promise;
        await leaving.close();
        const history = client();
        const stored = await pollUntil(
          "the run to be in history",
          () =>
            history.request<{ errorKind: string | null; errorMessage: string | null }>(
              "history.get",
              { id: runId },
            ),
        );
        await history.close();
        assert.equal(stored.errorKind, "Cancelled");
        assert.match(stored.errorMessage ?? "", /disconnected/);
        await watcher.close();
      });

      await t.step("a request with an Origin is refused on the socket", async () => {
        const conn = await Deno.connect({ transport: "unix", path: socket });
        await conn.write(new TextEncoder().encode(
          "GET /health HTTP/1.1\r\nHost: localhost\r\nOrigin: http://127.0.0.1:1\r\nConnection: close\r\n\r\n",
        ));
        const text = await new Response(conn.readable).text();
        assert.match(text, /^HTTP\/1\.1 403/);
        assert.match(text, /takes no browser requests/);
      });

      await t.step("/rpc on the TCP port wants the token", async () => {
        const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "namespaces", params: {} });
        const anonymous = await fetch(`http://127.0.0.1:${port}/rpc`, { method: "POST", body });
        assert.equal(anonymous.status, 401);
        await anonymous.body?.cancel();
        const tcp = new GatewayHttpClient({ transport: "tcp", port, token });
        const answer = await tcp.request<{ namespaces: unknown[] }>("namespaces");
        assert.ok(Array.isArray(answer.namespaces));
        await tcp.close();
      });
    });
  },
);
