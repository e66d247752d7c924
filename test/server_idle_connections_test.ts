import assert from "node:assert/strict";
import { GatewayClient } from "../src/client/gateway_client.ts";
import { withHarness } from "./support/gateway_harness.ts";

function rssKb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(Deno.readTextFileSync(`/proc/${pid}/status`));
  return Number(match?.[1] ?? NaN);
}

Deno.test({
  name:
    "1,000 idle authenticated WebSocket connections keep the server's memory bounded and it keeps answering",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await withHarness({ files: { "gateway.json": '{ "port": 0 }\n' } }, async (gw) => {
      const { port, token, pid } = await gw.server();
      const first = await GatewayClient.connect({ host: "127.0.0.1", port, token });
      // A checked run first: the type checker's warm-up must not count as connection memory.
      await first.request("exec", { source: "1", check: true });
      await new Promise((r) => setTimeout(r, 1000));
      const before = rssKb(pid);
      const idle: GatewayClient[] = [];
      try {
        for (let batch = 0; batch < 10; batch++) {
          idle.push(
            ...await Promise.all(
              Array.from(
                { length: 100 },
                () => GatewayClient.connect({ host: "127.0.0.1", port, token }),
              ),
            ),
          );
        }
        const answer = await first.request<{ namespaces: unknown[] }>("namespaces");
        assert.ok(Array.isArray(answer.namespaces));
        await new Promise((r) => setTimeout(r, 2000)); // let the handshakes' garbage go
        const grown = rssKb(pid) - before;
        assert.ok(
          grown < 100 * 1024,
          `server RSS grew ${Math.round(grown / 1024)} MB for 1,000 idle connections`,
        );
      } finally {
        await Promise.all([first, ...idle].map((c) => c.close()));
      }
    });
  },
});
