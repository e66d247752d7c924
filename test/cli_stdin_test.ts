import assert from "node:assert/strict";
import { withHarness } from "./support/gateway_harness.ts";

Deno.test("gateway exec --no-stdin does not wait on a stdin pipe its caller never closes", async () => {
  await withHarness({ files: { "gateway.json": '{ "port": 0 }\n' } }, async (gw) => {
    await gw.server();
    // stdin is left open, never written.
    const child = gw.spawnCli(["exec", "--no-stdin", "'done'"], { stdin: "piped" });
    // Hold the writer: the pipe stays open and empty for the whole run.
    const writer = child.stdin.getWriter();
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    try {
      const [stdout, stderr, status] = await Promise.all([
        new Response(child.stdout).text(),
        new Response(child.stderr).text(),
        child.status,
      ]);
      assert.equal(status.signal, null, "the CLI hung on stdin and was killed");
      assert.equal(status.code, 0, stderr);
      assert.equal(stdout, "done\n");
    } finally {
      clearTimeout(timer);
      await writer.close().catch(() => undefined);
    }
  });
});
