import assert from "node:assert/strict";
import { withHarness } from "./support/gateway_harness.ts";

Deno.test("gateway exec prints the last expression of a snippet on the bundled root", async () => {
  await withHarness({ bundled: true }, async (gw) => {
    const result = await gw.cli(["exec", "1 + 1"]);
    assert.equal(result.stderr, "");
    assert.equal(result.stdout, "2\n");
    assert.equal(result.code, 0);
  });
});
