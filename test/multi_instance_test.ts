/**
 * Several gateway instances on one PostgreSQL database: each has its own data dir
 * (lock, server state) but the same token and the same `store.postgres`, so a run made on one is
 * in the history of every other, `wait` on one returns a run another finished, and the bundled
 * kv and memory tools keep their data in that database.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { createHarness, type GatewayHarness } from "./support/gateway_harness.ts";
import { pollUntil } from "./support/poll_until.ts";
import { ProcessLedger } from "../src/process/process_ledger.ts";
import { GatewayClient } from "../src/client/gateway_client.ts";
import type { RunDocument } from "../src/protocol/run_document.ts";
import {
  postgresAvailable,
  type PostgresCluster,
  startPostgresCluster,
} from "./support/postgres_cluster.ts";

const CONFIG = JSON.stringify({
  store: { postgres: "${env:DATABASE_URL}", poolSize: 4, leaseMs: 1500 },
  exec: { typecheck: false },
  policy: [{ match: "danger.wipe", action: "ask" }],
});

const TOOL = `/** Removes everything (pretend). */
export function wipe(args: { what: string }): string {
  return \`wiped \${args.what}\`;
}
`;

const FILES = {
  "gateway.json": CONFIG,
  "tools/danger.ts": TOOL,
  "tools/kv.ts": Deno.readTextFileSync(new URL("../tools/kv.ts", import.meta.url)),
  "tools/memory.ts": Deno.readTextFileSync(new URL("../tools/memory.ts", import.meta.url)),
  "workflows/two.yaml":
    "description: Two steps.\nsteps:\n  - title: One\n    prompt: first\n  - title: Two\n    prompt: second\n",
};

type Doc = { runId: string; ok: boolean; result?: unknown; stdout: string; status?: string };

/** The held calls `gw` lists for `runId`, once there are some. */
async function pendingFor(gw: GatewayHarness, runId: string): Promise<{ id: string }[]> {
  return await pollUntil(`run ${runId} waiting for approval`, async () => {
    const listed = JSON.parse((await gw.cli(["approvals", "--json"])).stdout) as {
      pending: { id: string; runId: string }[];
    };
    const held = listed.pending.filter((p) => p.runId === runId);
    return held.length > 0 ? held : undefined;
  });
}

/** Writes one token into every instance's data dir, as an operator does before starting them. */
async function shareToken(instances: GatewayHarness[], token: string): Promise<void> {
  for (const gw of instances) {
    await Deno.mkdir(gw.dataDir, { recursive: true, mode: 0o700 });
    await Deno.writeTextFile(join(gw.dataDir, "token"), token + "\n", { mode: 0o600 });
  }
}

Deno.test({
  name: "three instances on one PostgreSQL share history and answer each other's waits",
  ignore: !postgresAvailable(),
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    let cluster: PostgresCluster | null = null;
    const instances: GatewayHarness[] = [];
    try {
      cluster = await startPostgresCluster();
      const env = { DATABASE_URL: cluster.url };
      for (let i = 0; i < 3; i++) {
        instances.push(await createHarness({ files: FILES, env }));
      }
      const [a, b, c] = instances as [GatewayHarness, GatewayHarness, GatewayHarness];
      const token = "f".repeat(16) + crypto.randomUUID().replaceAll("-", "");
      await shareToken(instances, token);

      await t.step("every instance accepts the one shared token", async () => {
        for (const gw of instances) {
          const { port } = await gw.server();
          const client = await GatewayClient.connect({ host: "127.0.0.1", port, token });
          client.close();
        }
      });

      await t.step("a run made on A is listed and shown by B and C", async () => {
        const run = await a.cli(["exec", "--json", `console.log("from A"); 6 * 7`]);
        assert.equal(run.code, 0, run.stderr);
        const doc = JSON.parse(run.stdout) as { runId: string; history: string };
        assert.equal(doc.history, "saved");
        const listed = JSON.parse((await b.cli(["history", "--json", "--limit", "5"])).stdout) as {
          runs: { runId: string }[];
        };
        assert.ok(listed.runs.some((r) => r.runId === doc.runId), JSON.stringify(listed));
        const shown = await c.cli(["history", "show", doc.runId]);
        assert.equal(shown.code, 0, shown.stderr);
        assert.match(shown.stdout, /from A/);
      });

      await t.step("wait on B returns the run A finished", async () => {
        const run = await a.cli(["exec", "--json", `console.log("waited"); "ok"`]);
        const { runId } = JSON.parse(run.stdout) as { runId: string };
        const waited = await b.cli(["wait", runId, "--json"]);
        assert.equal(waited.code, 0, waited.stderr);
        const doc = JSON.parse(waited.stdout) as { runId: string; result: unknown; stdout: string };
        assert.equal(doc.runId, runId);
        assert.equal(doc.result, "ok");
        assert.equal(doc.stdout, "waited\n");
      });

      await t.step("wait on B follows a run still going on A until it ends", async () => {
        const started = await a.cli([
          "exec",
          "--json",
          "--yield",
          "300",
          `await new Promise((r) => setTimeout(r, 1500)); "late"`,
        ]);
        const running = JSON.parse(started.stdout) as Doc;
        assert.equal(running.status, "running", started.stdout);
        const waited = await b.cli(["wait", running.runId, "--json"]);
        assert.equal(waited.code, 0, waited.stderr);
        assert.equal((JSON.parse(waited.stdout) as Doc).result, "late");
      });

      await t.step("a call held on A is listed on B and released by an answer on C", async () => {
        const started = await a.cli([
          "exec",
          "--json",
          "--yield",
          "300",
          `await tools.danger.wipe({ what: "disk" })`,
        ]);
        const running = JSON.parse(started.stdout) as Doc;
        assert.equal(running.status, "running", started.stdout);
        const held = await pendingFor(b, running.runId);
        assert.equal(held.length, 1);
        const approved = await c.cli(["approve", running.runId, "--by", "ada"]);
        assert.equal(approved.code, 0, approved.stderr);
        const done = JSON.parse((await a.cli(["wait", running.runId, "--json"])).stdout) as Doc;
        assert.equal(done.ok, true, JSON.stringify(done));
        assert.equal(done.result, "wiped disk");
        const stored = JSON.parse(
          (await b.cli(["history", "show", running.runId, "--json"])).stdout,
        ) as {
          toolCalls: { approval?: { allowed: boolean; by: string } }[];
        };
        assert.deepEqual(
          {
            allowed: stored.toolCalls[0]?.approval?.allowed,
            by: stored.toolCalls[0]?.approval?.by,
          },
          { allowed: true, by: "ada" },
        );
      });

      await t.step("a workflow started on A is stepped on B and seen on C", async () => {
        type View = { status: string; step?: { number: number; title: string } | null };
        const wf = (gw: GatewayHarness, args: string[]) =>
          gw.cli(["workflow", ...args, "--session", "shared", "--json"]);
        const file = join(a.root, "workflows", "two.yaml");
        const started = await wf(a, ["start", file]);
        assert.equal(started.code, 0, started.stderr);
        assert.equal((JSON.parse(started.stdout) as View).step?.number, 1);
        const stepped = await wf(b, ["step"]);
        assert.equal(stepped.code, 0, stepped.stderr);
        assert.equal((JSON.parse(stepped.stdout) as View).step?.title, "Two");
        const seen = JSON.parse((await wf(c, ["status"])).stdout) as View;
        assert.equal(seen.step?.number, 2);
        const refused = await wf(b, ["start", file]);
        assert.notEqual(refused.code, 0);
        assert.match(refused.stderr, /still running/);
        assert.equal((JSON.parse((await wf(c, ["step"])).stdout) as View).status, "complete");
      });

      await t.step("kv written by a script on A is read by scripts on B and C", async () => {
        const set = await a.cli([
          "exec",
          "--json",
          `await tools.kv.set({ key: "k", value: [1, "x"] })`,
        ]);
        assert.equal(set.code, 0, set.stderr + set.stdout);
        for (const gw of [b, c]) {
          const got = await gw.cli(["exec", "--json", `await tools.kv.get({ key: "k" })`]);
          assert.deepEqual((JSON.parse(got.stdout) as Doc).result, [1, "x"], got.stdout);
        }
        const again = await c.cli(["exec", "--json", `await tools.kv.set({ key: "k", value: 2 })`]);
        assert.deepEqual((JSON.parse(again.stdout) as Doc).result, { key: "k", created: false });
        // Nothing went to the instances' own kv.db files.
        for (const gw of instances) await assert.rejects(Deno.stat(join(gw.dataDir, "kv.db")));
      });

      await t.step("a memory entity written by a script on A is read on B", async () => {
        const made = await a.cli([
          "exec",
          "--json",
          `await tools.memory.createEntities({ entities: [
            { name: "Ada", entityType: "person", observations: ["wrote the first program"] },
          ] })`,
        ]);
        assert.equal(made.code, 0, made.stderr + made.stdout);
        const opened = await b.cli([
          "exec",
          "--json",
          `await tools.memory.openNodes({ names: ["Ada"] })`,
        ]);
        assert.deepEqual((JSON.parse(opened.stdout) as Doc).result, {
          entities: [{
            name: "Ada",
            entityType: "person",
            observations: ["wrote the first program"],
          }],
          relations: [],
        }, opened.stdout);
        // Nothing went to the instances' own memory.db files.
        for (const gw of instances) {
          await assert.rejects(Deno.stat(join(gw.dataDir, "memory.db")));
        }
      });

      await t.step("runs made on all three at once are all in the shared history", async () => {
        const before = JSON.parse((await a.cli(["history", "--json", "--limit", "1000"])).stdout)
          .runs.length as number;
        const made = await Promise.all(
          instances.flatMap((gw) =>
            [1, 2].map(async (n) => {
              const out = await gw.cli(["exec", "--json", `${n}`]);
              return (JSON.parse(out.stdout) as { runId: string }).runId;
            })
          ),
        );
        const after = JSON.parse(
          (await c.cli(["history", "--json", "--limit", "1000"])).stdout,
        ) as {
          runs: { runId: string }[];
        };
        assert.equal(after.runs.length, before + 6);
        for (const id of made) assert.ok(after.runs.some((r) => r.runId === id), id);
      });

      await t.step(
        "A killed with kill -9 mid-run: B and C mark its run Crashed after the lease",
        async () => {
          const before = JSON.parse((await b.cli(["history", "--json", "--limit", "1000"])).stdout)
            .runs as { runId: string }[];
          const started = await a.cli([
            "exec",
            "--json",
            "--yield",
            "300",
            `await new Promise(() => setInterval(() => {}, 1000))`,
          ]);
          const running = JSON.parse(started.stdout) as Doc;
          assert.equal(running.status, "running", started.stdout);
          const { pid } = await a.server();
          Deno.kill(pid, "SIGKILL");
          // What a restart of A would do: end the runner the dead server left behind.
          assert.ok(ProcessLedger.reapStale(join(a.dataDir, "state"), { log: () => {} }) > 0);
          const waited = await b.cli(["wait", running.runId, "--json"]);
          assert.equal(waited.code, 1, waited.stderr);
          const doc = JSON.parse(waited.stdout) as Doc & {
            error?: { kind: string; message: string };
          };
          assert.equal(doc.error?.kind, "Crashed");
          assert.match(doc.error?.message ?? "", /stopped renewing its lease/);
          // Everything answered before the kill is still there.
          const after = JSON.parse((await c.cli(["history", "--json", "--limit", "1000"])).stdout)
            .runs as { runId: string }[];
          for (const run of before) assert.ok(after.some((r) => r.runId === run.runId), run.runId);
          assert.equal(after.length, before.length + 1);
        },
      );
    } finally {
      for (const gw of instances) await gw.dispose();
      await cluster?.stop();
    }
  },
});

Deno.test({
  name: "an instance whose PostgreSQL is unreachable refuses to start and says why",
  ignore: !postgresAvailable(),
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    listener.close();
    const gw = await createHarness({
      files: FILES,
      env: { DATABASE_URL: `postgres://gateway:pw-hunter22@127.0.0.1:${port}/postgres` },
    });
    try {
      const started = await gw.cli(["start"]);
      assert.notEqual(started.code, 0);
      assert.match(started.stderr + started.stdout, /PostgreSQL|ECONNREFUSED|unavailable/);
      assert.doesNotMatch(started.stderr + started.stdout, /pw-hunter22/);
    } finally {
      await gw.dispose();
    }
  },
});

Deno.test({
  name: "PostgreSQL restarted under load: every answered run is kept, the instances recover",
  ignore: !postgresAvailable(),
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    let cluster: PostgresCluster | null = null;
    const instances: GatewayHarness[] = [];
    const clients: GatewayClient[] = [];
    try {
      cluster = await startPostgresCluster();
      for (let i = 0; i < 2; i++) {
        const gw = await createHarness({ files: FILES, env: { DATABASE_URL: cluster.url } });
        instances.push(gw);
        clients.push(await gw.client());
      }
      let answered = 0;
      const runs = Array.from(
        { length: 30 },
        (_, i) =>
          clients[i % 2]!.request<RunDocument>("exec", {
            source: `await new Promise((r) => setTimeout(r, ${20 * i})); ${i}`,
          }).then((doc) => {
            answered++;
            return doc;
          }, (error: unknown) => {
            // Kept as a value so a lost connection fails the assertions below, after cleanup
            // is guaranteed, rather than as an unhandled rejection that skips it.
            answered++;
            return { lost: String(error) };
          }),
      );
      // Mid-load: some runs answered, the rest in flight or queued.
      await pollUntil(
        "the first runs to be answered",
        () => Promise.resolve(answered >= 3 ? true : undefined),
      );
      await cluster.halt();
      await cluster.resume();
      const outcomes = await Promise.all(runs);
      const docs: RunDocument[] = [];
      for (const outcome of outcomes) {
        assert.ok(!("lost" in outcome), JSON.stringify(outcome));
        docs.push(outcome);
      }
      for (const doc of docs) {
        assert.equal(doc.ok, true, JSON.stringify(doc));
        assert.equal(doc.history, "saved", JSON.stringify(doc));
      }
      // 0 acknowledged runs lost: each one is in the shared history, seen from both instances.
      for (const client of clients) {
        const { runs: listed } = await client.request<{ runs: { runId: string }[] }>(
          "history.list",
          { limit: 1000 },
        );
        for (const doc of docs) {
          assert.ok(listed.some((r) => r.runId === doc.runId), doc.runId);
        }
      }
      // Recovered by themselves: new runs on both are saved and shared.
      const after = await clients[0]!.request<RunDocument>("exec", { source: `"after"` });
      assert.equal(after.history, "saved");
      const seen = await clients[1]!.request<{ runId: string }>("history.get", {
        id: after.runId,
      });
      assert.equal(seen.runId, after.runId);
    } finally {
      for (const client of clients) client.close();
      for (const gw of instances) await gw.dispose();
      await cluster?.stop();
    }
  },
});
