import assert from "node:assert/strict";
import type { RunDocument } from "../src/protocol/run_document.ts";
import { RpcError } from "../src/protocol/json_rpc.ts";
import { withHarness } from "./support/gateway_harness.ts";
import { pollUntil } from "./support/poll_until.ts";

Deno.test("SIGTERM lets a run in flight finish, refuses new runs, then the server exits", async () => {
  await withHarness({ files: { "gateway.json": '{ "port": 0 }\n' } }, async (gw) => {
    const { pid } = await gw.server();
    const client = await gw.client();
    const other = await gw.client();
    try {
      assert.equal(
        (await client.request<RunDocument>("exec", { source: "1", check: false })).ok,
        true,
      );
      const begun = new Promise<void>((resolve) => {
        const off = client.onNotification((n) => {
          if (n.method !== "run.output") return;
          off();
          resolve();
        });
      });
      const running = client.request<RunDocument>("exec", {
        source: "console.log('begun'); await new Promise((r) => setTimeout(r, 1500)); 'finished'",
        check: false,
        stream: true,
      });
      await begun;
      Deno.kill(pid, "SIGTERM");
      await pollUntil("the stopping server to refuse a new run", async () => {
        try {
          await other.request("exec", { source: "2", check: false });
          return undefined; // SIGTERM not handled yet
        } catch (error) {
          if (error instanceof RpcError && error.code === -32001) return true;
          throw error;
        }
      }, { timeoutMs: 5_000 });
      const done = await running;
      assert.equal(done.ok, true, JSON.stringify(done.error));
      assert.equal(done.result, "finished");
      await pollUntil("the server to exit after SIGTERM", () => {
        try {
          Deno.kill(pid, "SIGCONT");
          return false;
        } catch {
          return true; // the server is gone
        }
      }, { timeoutMs: 10_000 });
    } finally {
      await client.close();
      await other.close();
    }
  });
});
