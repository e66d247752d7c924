import assert from "node:assert/strict";
import { RpcError } from "../src/protocol/json_rpc.ts";
import type { RunDocument } from "../src/protocol/run_document.ts";
import type { GatewayClient } from "../src/client/gateway_client.ts";
import { withHarness } from "./support/gateway_harness.ts";

Deno.test("a burst of runs takes turns: every accepted run answers once, the rest are refused as overloaded at once", async () => {
  const config = { port: 0, exec: { maxConcurrentRuns: 4, maxQueuedRuns: 40, typecheck: false } };
  await withHarness({ files: { "gateway.json": JSON.stringify(config) } }, async (gw) => {
    const clients: GatewayClient[] = [];
    try {
      for (let i = 0; i < 10; i++) clients.push(await gw.client());
      const total = 120;
      const outcomes = await Promise.all(
        Array.from({ length: total }, async (_, i) => {
          const nonce = `n${i}-${crypto.randomUUID()}`;
          const started = performance.now();
          try {
            const doc = await clients[i % clients.length]!.request<RunDocument>("exec", {
              source: `${JSON.stringify(nonce)}`,
            });
            return { nonce, doc, refused: null, ms: performance.now() - started };
          } catch (error) {
            if (!(error instanceof RpcError)) throw error;
            return { nonce, doc: null, refused: error, ms: performance.now() - started };
          }
        }),
      );
      const accepted = outcomes.filter((o) => o.doc !== null);
      const refused = outcomes.filter((o) => o.refused !== null);
      assert.equal(accepted.length + refused.length, total);
      // At most 4 running plus 40 waiting when the burst arrives; the rest are refused.
      assert.ok(accepted.length >= 44, `accepted ${accepted.length}`);
      assert.ok(refused.length > 0, "some runs must be refused");
      for (const o of accepted) {
        assert.equal(o.doc!.ok, true, JSON.stringify(o.doc!.error));
        assert.equal(o.doc!.result, o.nonce);
      }
      assert.equal(new Set(accepted.map((o) => o.doc!.runId)).size, accepted.length);
      for (const o of refused) {
        assert.equal(o.refused!.code, -32002);
        assert.equal(o.refused!.data?.kind, "Overloaded");
        assert.equal(o.refused!.data?.retryAfterMs, 1000);
        assert.match(o.refused!.message, /exec\.maxQueuedRuns/);
      }
      // Every accepted run is in history, exactly once.
      const listed = await clients[0]!.request<{ runs: { runId: string }[] }>("history.list", {
        limit: 1000,
      });
      const ids = new Set(listed.runs.map((r) => r.runId));
      for (const o of accepted) {
        assert.ok(ids.has(o.doc!.runId), `run ${o.doc!.runId} not in history`);
      }
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });
});
