/**
 * End-to-end: `history save` never writes into the gateway's own installation (the bundled
 * root); it says to run `gateway init` and save into the user's root instead.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { withHarness } from "./support/gateway_harness.ts";

Deno.test("history save in the bundled root is refused with what to do, and writes nothing", async () => {
  await withHarness({ bundled: true }, async (gw) => {
    const run = JSON.parse((await gw.cli(["exec", "--json", "6 * 7"])).stdout) as {
      runId: string;
    };
    const saved = await gw.cli(["history", "save", run.runId, "wt13-answer"]);
    assert.equal(saved.code, 2);
    assert.match(
      saved.stderr,
      /error\[Usage\]: The root here is the gateway's installation .*: run gateway init here/,
    );
    await assert.rejects(
      Deno.stat(join(gw.root, "scripts", "wt13-answer.ts")),
      Deno.errors.NotFound,
    );
  });
});
