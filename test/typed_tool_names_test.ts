/**
 * One tool, one name, from the CLI: a script and the CLI call server-everything's `get-sum` as
 * `everything.get_sum`, and every place that names the call afterwards says the same — the
 * `InvalidToolInput` message, `gateway history show`, `gateway search` — with the upstream's
 * own name as a note where it differs.
 * @module
 */

import assert from "node:assert/strict";
import type { RunDocument } from "../src/protocol/run_document.ts";
import { withHarness } from "./support/gateway_harness.ts";
import { realServerBin } from "./fixtures/mcp/mcp_test_servers.ts";

Deno.test("a tool is named as the script types it, the upstream's name beside it", async () => {
  const config = {
    port: 0,
    mcpServers: { everything: { command: "node", args: [realServerBin("everything")] } },
  };
  await withHarness({ files: { "gateway.json": JSON.stringify(config) } }, async (gw) => {
    // A bad argument, past the type check, fails at the gateway's own check.
    const bad = await gw.cli([
      "exec",
      "--no-check",
      "await tools.everything.get_sum({ a: 1, b: 'two' })",
    ]);
    assert.equal(bad.code, 1, bad.stderr);
    assert.match(
      bad.stderr,
      /InvalidToolInput.*Invalid input for tool "everything\.get_sum" \(upstream name "get-sum"\): "\/b" must be number/,
    );
    assert.doesNotMatch(bad.stderr, /"everything\.get-sum"/);

    const good = JSON.parse(
      (await gw.cli(["exec", "--json", "await tools.everything.get_sum({ a: 1, b: 2 })"])).stdout,
    ) as RunDocument;
    assert.equal(good.ok, true, JSON.stringify(good.error));
    const shown = await gw.cli(["history", "show", good.runId]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /^everything\.get_sum \(upstream get-sum\) \d+ ms ok → /m);

    const failed = JSON.parse((await gw.cli(["history", "--json", "--failed"])).stdout) as {
      runs: { runId: string }[];
    };
    const badRun = await gw.cli(["history", "show", failed.runs[0]!.runId]);
    assert.match(badRun.stdout, /everything\.get_sum \(upstream get-sum\) \d+ ms InvalidToolInput/);
    assert.match(badRun.stdout, /Invalid input for tool "everything\.get_sum"/);

    // Search finds it by either name.
    for (const query of ["everything.get_sum", "everything.get-sum", "get-sum"]) {
      const found = await gw.cli(["search", query, "--limit", "1"]);
      assert.match(found.stdout, /^tools\.everything\.get_sum\(/, `search "${query}"`);
    }
  });
});
