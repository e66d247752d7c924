/**
 * The MCP upstreams start after the gateway's own start (its tool modules), never held by it for
 * long: a tool module that hangs at import keeps its namespace "starting" until its load
 * timeout, yet server-everything is ready long before that; a run naming the upstream waits for
 * it alone; a module that throws at import fails alone, with its reason. Against the real
 * server-everything.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import type { RunDocument } from "../src/protocol/run_document.ts";
import { type GatewayHarness, REPO, withHarness } from "./support/gateway_harness.ts";
import { pollUntil } from "./support/poll_until.ts";

const EVERYTHING = join(
  REPO,
  "test/servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
);

const files = {
  "gateway.json": JSON.stringify({
    mcpServers: { everything: { command: "node", args: [EVERYTHING, "stdio"] } },
  }),
  // Never finishes importing: "starting" until the 10 s load timeout, then failed.
  "tools/stuck.ts":
    "await new Promise(() => {});\n/** Never reached. */\nexport function x(): number {\n  return 1;\n}\n",
  "tools/broken.ts": 'throw new Error("broken at import");\n',
  "tools/fine.ts": "/** One. */\nexport function one(): number {\n  return 1;\n}\n",
};

interface Listed {
  namespaces: { name: string; status: string; reason?: string }[];
}

/** The namespaces as `/health` has them now (`gateway tools` waits for starting ones). */
async function health(gw: GatewayHarness): Promise<Listed> {
  const { port, token } = await gw.server();
  const response = await fetch(`http://127.0.0.1:${port}/health`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return await response.json() as Listed;
}

Deno.test("MCP upstreams start after the tool modules, but a stuck module never holds them", async () => {
  await withHarness({ files }, async (gw) => {
    const started = await gw.cli(["start"]);
    assert.equal(started.code, 0, started.stderr);
    // A run that names the upstream waits for it, not for the stuck module.
    const doc = JSON.parse(
      (await gw.cli([
        "exec",
        "--json",
        "--no-check",
        'await tools.everything.echo({ message: "hi" })',
      ])).stdout,
    ) as RunDocument;
    assert.equal(doc.ok, true, JSON.stringify(doc.error));
    assert.equal(doc.result, "Echo: hi");
    const listed = await health(gw);
    const status = (name: string) => listed.namespaces.find((ns) => ns.name === name);
    assert.equal(status("everything")?.status, "ready");
    assert.equal(
      status("stuck")?.status,
      "starting",
      "the upstream answered while the stuck module was still in its load",
    );
    // The others settle on their own: each module fails alone, with its reason.
    const broken = await pollUntil("the broken module to fail", async () => {
      const now = (await health(gw)).namespaces.find((ns) => ns.name === "broken");
      return now?.status === "failed" ? now : undefined;
    });
    assert.match(broken.reason ?? "", /broken at import/);
    await pollUntil("the fine module ready beside them", async () => {
      const fine = (await health(gw)).namespaces.find((ns) => ns.name === "fine");
      return fine?.status === "ready";
    });
    // And the stuck one fails alone, with its reason, at its load timeout.
    const failed = await pollUntil("the stuck module to fail", async () => {
      const now = (await health(gw)).namespaces.find((ns) => ns.name === "stuck");
      return now?.status === "failed" ? now : undefined;
    }, { timeoutMs: 30_000 });
    assert.match(failed.reason ?? "", /stuck/);
    assert.equal(
      (await health(gw)).namespaces.find((ns) => ns.name === "everything")?.status,
      "ready",
    );
  });
});

Deno.test("with no run asking, the upstream starts once the modules settle, bounded by a stuck one", async () => {
  await withHarness({ files }, async (gw) => {
    const started = await gw.cli(["start"]);
    assert.equal(started.code, 0, started.stderr);
    // Nothing names the upstream: it starts on its own, well before the stuck module's load
    // timeout ends its wait.
    const seen = await pollUntil("everything ready with nothing asking for it", async () => {
      const listed = await health(gw);
      return listed.namespaces.find((ns) => ns.name === "everything")?.status === "ready"
        ? listed
        : undefined;
    }, { timeoutMs: 30_000 });
    assert.equal(seen.namespaces.find((ns) => ns.name === "stuck")?.status, "starting");
  });
});
