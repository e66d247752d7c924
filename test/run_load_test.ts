/**
 * End-to-end load and durability: 50 runs at once over several WebSocket
 * connections, each making 100 kv calls, lose no result and no history row; a history database
 * left by `kill -9` of the server during a burst of runs opens, passes `integrity_check`, and
 * keeps every run whose result was acknowledged.
 * @module
 */

import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { GatewayClient } from "../src/client/gateway_client.ts";
import type { GatewayHarness } from "./support/gateway_harness.ts";
import {
  execRpc,
  killPids,
  processesMatching,
  type RunDocument,
  runTestRoot,
  startForegroundServer,
  withRunHarness,
} from "./support/run_test_support.ts";
import { pollUntil } from "./support/poll_until.ts";

const KV_SCRIPT = `const nonce = args[0]!;
let sum = 0;
for (let i = 0; i < 50; i++) await tools.kv.set({ key: \`\${nonce}:\${i}\`, value: i });
for (let i = 0; i < 50; i++) sum += (await tools.kv.get({ key: \`\${nonce}:\${i}\` })) as number;
({ nonce, sum })`;

async function connectMany(gw: GatewayHarness, count: number): Promise<GatewayClient[]> {
  const clients: GatewayClient[] = [];
  for (let i = 0; i < count; i++) clients.push(await gw.client());
  return clients;
}

/**
 * Waits for the children of a killed server (found by the temp dir in their argv) to exit on
 * their own; kills any that do not, by pid, and returns their command lines.
 */
async function reapOrphans(base: string): Promise<string[]> {
  let left: number[] = [];
  try {
    await pollUntil("the killed server's children to exit", () => {
      left = processesMatching(base);
      return left.length === 0;
    }, { timeoutMs: 5000, intervalMs: 100 });
    return [];
  } catch {
    const commands = left.map((pid) => {
      try {
        return Deno.readTextFileSync(`/proc/${pid}/cmdline`).replaceAll("\0", " ");
      } catch {
        return `pid ${pid}`;
      }
    });
    killPids(left);
    return commands;
  }
}

Deno.test("50 runs at once, 100 kv calls each, lose no result and no history row", {
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const files = await runTestRoot({ kv: true, probe: false, config: { exec: { poolSize: 4 } } });
  await withRunHarness({ files }, async (gw) => {
    const clients = await connectMany(gw, 5);
    try {
      const nonces = Array.from({ length: 50 }, () => crypto.randomUUID());
      const started = Date.now();
      const docs = await Promise.all(
        nonces.map((nonce, i) =>
          execRpc(clients[i % clients.length]!, { source: KV_SCRIPT, args: [nonce] })
        ),
      );
      const elapsed = Date.now() - started;
      const failures = docs.filter((d) => !d.ok).map((d) => d.error);
      assert.deepEqual(failures, [], "every run succeeded");
      assert.deepEqual(
        docs.map((d) => (d.result as { nonce: string }).nonce),
        nonces,
        "each answer carries its own nonce",
      );
      assert.ok(docs.every((d) => (d.result as { sum: number }).sum === 1225));
      assert.ok(docs.every((d) => d.toolCalls === 100));
      assert.equal(new Set(docs.map((d) => d.runId)).size, 50);
      const listed = await clients[0]!.request<
        { runs: Array<{ runId: string; toolCalls: number }> }
      >(
        "history.list",
        { limit: 200 },
      );
      const rows = new Map(listed.runs.map((r) => [r.runId, r.toolCalls]));
      for (const doc of docs) assert.equal(rows.get(doc.runId), 100, `history row of ${doc.runId}`);
      assert.equal(listed.runs.length, 50);
      console.log(`50 runs x 100 kv calls in ${elapsed} ms`);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });
});

Deno.test("a history database left by kill -9 mid-write opens and keeps every acknowledged run", {
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const files = await runTestRoot({ kv: true, probe: false });
  await withRunHarness({ files }, async (gw) => {
    const base = dirname(gw.dataDir);
    const acknowledged: string[] = [];
    for (let round = 0; round < 3; round++) {
      const server = await startForegroundServer(gw);
      const pid = server.pid;
      const clients = await connectMany(gw, 3);
      const ackedThisRound: string[] = [];
      let stopping = false;
      // Each connection keeps two runs in flight until the server dies.
      const workers = clients.flatMap((client) =>
        [0, 1].map(async () => {
          while (!stopping) {
            let doc: RunDocument;
            try {
              doc = await execRpc(client, {
                source: `await tools.kv.set({ key: args[0]!, value: 1 });\n` +
                  `console.log("x".repeat(2048));\nargs[0]`,
                args: [crypto.randomUUID()],
              });
            } catch {
              return; // the server is gone
            }
            if (doc.ok && doc.history === "saved") ackedThisRound.push(doc.runId);
          }
        })
      );
      await pollUntil("runs to be acknowledged", () => ackedThisRound.length >= 8 + round * 4, {
        timeoutMs: 20_000,
        intervalMs: 5,
      });
      Deno.kill(pid, "SIGKILL");
      stopping = true;
      await Promise.all(workers);
      await Promise.all(clients.map((c) => c.close()));
      await server.status;
      acknowledged.push(...ackedThisRound);
      assert.deepEqual(await reapOrphans(base), [], "the killed server's children exit");

      const db = new DatabaseSync(join(gw.dataDir, "gateway.db"));
      try {
        const check = db.prepare("PRAGMA integrity_check").all();
        assert.deepEqual(check.map((r) => Object.values(r)[0]), ["ok"], `round ${round}`);
        const ids = new Set(db.prepare("SELECT id FROM runs").all().map((r) => String(r.id)));
        const lost = acknowledged.filter((id) => !ids.has(id));
        assert.deepEqual(lost, [], `round ${round}: acknowledged runs missing after kill -9`);
      } finally {
        db.close();
      }
    }
    const restarted = await gw.cli(["exec", "--json", `"alive again"`]);
    assert.equal(restarted.code, 0, restarted.stderr);
    const client = await gw.client();
    try {
      for (const id of acknowledged) {
        const stored = await client.request<{ runId: string; status: string }>("history.get", {
          id,
        });
        assert.equal(stored.status, "ok");
      }
    } finally {
      await client.close();
    }
  });
});
