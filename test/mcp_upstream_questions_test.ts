import assert from "node:assert/strict";
import { join } from "node:path";
import type { RunDocument, RunningDocument } from "../src/protocol/run_document.ts";
import { EraVerdicts } from "../src/namespaces/mcp/era_verdicts.ts";
import { type GatewayHarness, withHarness } from "./support/gateway_harness.ts";
import { pollUntil } from "./support/poll_until.ts";
import { fixtureConfig } from "./fixtures/mcp/mcp_test_servers.ts";

interface Pending {
  id: string;
  runId: string;
  namespace: string;
  tool: string;
  args: string;
  rule: string;
}

async function pendingFor(gw: GatewayHarness, runId: string): Promise<Pending[]> {
  return await pollUntil(`run ${runId} to wait for an answer`, async () => {
    const listed = JSON.parse((await gw.cli(["approvals", "--json"])).stdout) as {
      pending: Pending[];
    };
    const held = listed.pending.filter((p) => p.runId === runId);
    return held.length > 0 ? held : undefined;
  }, { timeoutMs: 30_000 });
}

/** Waits until the gateway lists namespace `upstream` as ready. */
async function upstreamReady(gw: GatewayHarness): Promise<void> {
  await pollUntil("upstream to be ready in gateway tools", async () => {
    const listed = JSON.parse((await gw.cli(["tools", "--json"])).stdout) as {
      namespaces: { name: string; status: string }[];
    };
    return listed.namespaces.find((n) => n.name === "upstream")?.status === "ready";
  }, { timeoutMs: 30_000 });
}

/** Runs `confirm_delete(path)` in a script, answers its question with `allow`, returns the run. */
async function deleteAnswered(gw: GatewayHarness, path: string, allow: boolean) {
  const client = await gw.client();
  try {
    const running = await client.request<RunningDocument>("exec", {
      source: `await tools.upstream.confirm_delete({ path: ${JSON.stringify(path)} })`,
      yieldAfterMs: 500,
      check: false,
    });
    assert.equal(running.status, "running");
    const held = await pendingFor(gw, running.runId);
    assert.equal(held.length, 1);
    assert.equal(held[0]!.namespace, "upstream");
    assert.equal(held[0]!.tool, "confirm_delete");
    assert.equal(held[0]!.rule, `MCP server "upstream" asks: Delete ${path}?`);
    assert.equal(held[0]!.args, '{"confirm":true}');
    const answered = await gw.cli(["approve", running.runId, ...(allow ? [] : ["--deny"])]);
    assert.equal(answered.code, 0, answered.stderr);
    return await client.request<RunDocument>("wait", { runId: running.runId });
  } finally {
    client.close();
  }
}

for (const era of ["2026-07-28", "2025"] as const) {
  Deno.test(`an upstream's question (${era} era) is held as an approval of the run: yes and no reach the server`, async () => {
    const config = fixtureConfig("modern_only_upstream.ts", {
      args: ["stdio"],
      env: era === "2025" ? { UPSTREAM_ACCEPT_2025: "1" } : {},
    });
    await withHarness({
      files: {
        "gateway.json": JSON.stringify({
          port: 0,
          exec: { typecheck: false },
          mcpServers: { upstream: config },
        }),
      },
    }, async (gw) => {
      if (era === "2025") {
        // The server speaks both eras and the gateway would pick 2026-07-28: a kept legacy
        // verdict makes this connection a 2025 one, whose questions are requests of their own.
        new EraVerdicts(gw.dataDir).remember("upstream", config, undefined);
      }
      const allowed = await deleteAnswered(gw, "/tmp/a", true);
      assert.equal(allowed.ok, true, JSON.stringify(allowed.error));
      assert.equal(allowed.result, "Deleted /tmp/a");
      const denied = await deleteAnswered(gw, "/tmp/b", false);
      assert.equal(denied.ok, true, JSON.stringify(denied.error));
      assert.equal(denied.result, "Kept /tmp/b");
      const kept = JSON.parse(await Deno.readTextFile(join(gw.dataDir, "mcp", "eras.json")));
      assert.equal(kept.upstream.era, era === "2025" ? "legacy" : "modern");
    });
  });
}

Deno.test("a question asked outside a run (a direct call) is declined without holding anyone", async () => {
  const config = fixtureConfig("modern_only_upstream.ts", { args: ["stdio"] });
  await withHarness({
    files: {
      "gateway.json": JSON.stringify({ port: 0, mcpServers: { upstream: config } }),
    },
  }, async (gw) => {
    await upstreamReady(gw);
    const client = await gw.client();
    try {
      const called = await client.request<{ value: unknown }>("call", {
        namespace: "upstream",
        tool: "confirm_delete",
        args: { path: "/tmp/c" },
      });
      assert.equal(called.value, "Kept /tmp/c");
    } finally {
      client.close();
    }
    const listed = JSON.parse((await gw.cli(["approvals", "--json"])).stdout) as {
      pending: unknown[];
    };
    assert.deepEqual(listed.pending, []);
  });
});
