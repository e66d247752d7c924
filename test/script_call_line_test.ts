/**
 * The script line of a failing tool call: its `ToolError` points at the script's own line, also
 * when the call is made through a helper function the script defines or through `.raw` (the
 * runner captures the call site before the call's first await).
 * @module
 */

import assert from "node:assert/strict";
import { pollUntil } from "./support/poll_until.ts";
import { execRpc, runTestRoot, withRunHarness } from "./support/run_test_support.ts";

Deno.test("a failing tool call's ToolError names the script line of the call", async () => {
  await withRunHarness({ files: await runTestRoot() }, async (gw) => {
    const client = await gw.client();
    try {
      await pollUntil("the probe namespace to be ready", async () => {
        const { namespaces } = await client.request<{ namespaces: { status: string }[] }>(
          "namespaces",
          {},
        );
        return namespaces.every((n) => n.status === "ready") ? true : undefined;
      });
      const direct = await execRpc(client, {
        source: `// a comment\n\nawait tools.probe.fail({ message: "no" });\n`,
      });
      assert.equal(direct.error?.kind, "ToolError", JSON.stringify(direct.error));
      assert.equal(direct.error?.line, 3);

      const helper = await execRpc(client, {
        source: `const boom = (message: string) =>\n  tools.probe.fail({ message });\n\n` +
          `await boom("no");\n`,
      });
      assert.equal(helper.error?.kind, "ToolError", JSON.stringify(helper.error));
      assert.equal(helper.error?.line, 2);

      const raw = await execRpc(client, {
        source: `// a comment\nconst envelope = await tools.probe.fail.raw({ message: "no" });\n` +
          `envelope`,
      });
      assert.equal(raw.error?.kind, "ToolError", JSON.stringify(raw.error));
      assert.equal(raw.error?.line, 2);
    } finally {
      await client.close();
    }
  });
});
