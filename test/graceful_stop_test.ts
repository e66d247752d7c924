import assert from "node:assert/strict";
import type { RunDocument } from "../src/protocol/run_document.ts";
import { RpcError } from "../src/protocol/json_rpc.ts";
import { withHarness } from "./support/gateway_harness.ts";

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
      const running = client.request<RunDocument>("exec", {
        source: "await new Promise((r) => setTimeout(r, 1500)); 'finished'",
        check: false,
      });
      await new Promise((r) => setTimeout(r, 300));
      Deno.kill(pid, "SIGTERM");
      await new Promise((r) => setTimeout(r, 100));
      await assert.rejects(
        () => other.request("exec", { source: "2", check: false }),
        (error: unknown) => error instanceof RpcError && error.code === -32001,
      );
      const done = await running;
      assert.equal(done.ok, true, JSON.stringify(done.error));
      assert.equal(done.result, "finished");
      for (let i = 0; i < 100; i++) {
        try {
          Deno.kill(pid, "SIGCONT");
        } catch {
          return; // the server is gone
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.fail("the server did not exit within 10 s of SIGTERM");
    } finally {
      await client.close();
      await other.close();
    }
  });
});
