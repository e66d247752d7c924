/**
 * End-to-end proof of long runs: `--yield MS` answers `{status: "running", runId,
 * stdout so far}`, `gateway wait ID` and RPC `wait` return the rest, `cancel` stops a run, and
 * `run.output` notifications stream output over the WebSocket while the run goes on.
 * @module
 */

import assert from "node:assert/strict";
import { RpcError } from "../src/protocol/json_rpc.ts";
import {
  execRpc,
  parseRun,
  type RunDocument,
  type RunningDocument,
  runTestRoot,
  withRunHarness,
} from "./support/run_test_support.ts";

/** Prints `first`, waits `ms`, prints `second`, and ends with "done". */
function twoPart(ms: number): string {
  return `console.log("first");\nawait new Promise((resolve) => setTimeout(resolve, ${ms}));\n` +
    `console.log("second");\n"done"`;
}

const FOREVER = `console.log("working");\nawait new Promise(() => setInterval(() => {}, 1000));`;

Deno.test("long runs yield, wait, cancel and stream", {
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  const files = await runTestRoot({ probe: false });
  await withRunHarness({ files }, async (gw) => {
    const client = await gw.client();
    try {
      // The first run warms the type checker, so later yields measure the run, not start-up.
      assert.equal((await execRpc(client, { source: "1", check: true })).ok, true);
      await t.step(
        "--yield answers running with stdout so far; gateway wait returns the rest",
        async () => {
          const yielded = await gw.cli(["exec", "--json", "--yield", "600", twoPart(1500)]);
          assert.equal(yielded.code, 0, yielded.stderr);
          const running = JSON.parse(yielded.stdout) as RunningDocument;
          assert.equal(running.status, "running");
          assert.match(running.runId, /^[0-9a-z]{21}$/);
          assert.equal(running.stdout, "first\n");
          // What the yielded answer showed ("first") is not printed again.
          const waited = await gw.cli(["wait", running.runId]);
          assert.equal(waited.code, 0, waited.stderr);
          assert.equal(waited.stdout, "second\ndone\n");
          const again = await gw.cli(["wait", running.runId, "--json"]);
          const doc = parseRun(again.stdout);
          assert.equal(doc.runId, running.runId);
          assert.equal(doc.result, "done");
          assert.equal(doc.stdout, "first\nsecond\n");
          assert.equal(doc.stdoutYielded, "first\n".length);
        },
      );

      await t.step(
        "without --json a yielded run prints its output, its id and how to wait",
        async () => {
          const yielded = await gw.cli(["exec", "--yield", "600", twoPart(1200)]);
          assert.equal(yielded.code, 0);
          const id = /gateway wait (\S+)/.exec(yielded.stderr)?.[1];
          assert.ok(id, yielded.stderr);
          assert.equal(yielded.stdout, `first\n${id}\n`);
          assert.match(
            yielded.stderr,
            new RegExp(`^run ${id} is still running: gateway wait ${id}\\n$`),
          );
          assert.equal((await gw.cli(["wait", id])).stdout, "second\ndone\n");
        },
      );

      await t.step(
        "RPC wait returns the rest, or running again when its own timeout passes first",
        async () => {
          const running = await client.request<RunningDocument>("exec", {
            source: twoPart(1200),
            yieldAfterMs: 400,
          });
          assert.equal(running.status, "running");
          const still = await client.request<RunningDocument>("wait", {
            runId: running.runId,
            timeoutMs: 100,
          });
          assert.equal(still.status, "running");
          assert.equal(still.stdout, "first\n");
          const doc = await client.request<RunDocument>("wait", { runId: running.runId });
          assert.equal(doc.ok, true);
          assert.equal(doc.stdout, "first\nsecond\n");
          assert.equal(doc.result, "done");
          const late = await client.request<RunDocument>("wait", { runId: running.runId });
          assert.equal(late.result, "done");
        },
      );

      await t.step("a yielded run outlives the connection that started it", async () => {
        const starter = await gw.client();
        let running: RunningDocument;
        try {
          running = await starter.request<RunningDocument>("exec", {
            source: twoPart(500),
            yieldAfterMs: 100,
          });
        } finally {
          await starter.close();
        }
        const doc = await client.request<RunDocument>("wait", { runId: running.runId });
        assert.equal(doc.ok, true, JSON.stringify(doc.error));
        assert.equal(doc.stdout, "first\nsecond\n");
      });

      await t.step("cancel stops a yielded run; wait then reports Cancelled", async () => {
        const running = await client.request<RunningDocument>("exec", {
          source: FOREVER,
          yieldAfterMs: 400,
        });
        assert.equal(running.stdout, "working\n");
        assert.deepEqual(await client.request("cancel", { runId: running.runId }), {
          cancelled: true,
          runId: running.runId,
        });
        const doc = await client.request<RunDocument>("wait", { runId: running.runId });
        assert.equal(doc.error?.kind, "Cancelled");
        assert.equal(doc.stdout, "working\n");
        await assert.rejects(
          client.request("cancel", { runId: running.runId }),
          (error: unknown) => error instanceof RpcError && /is in flight/.test(error.message),
        );
        const cli = await gw.cli(["cancel", "nosuchrun0000"]);
        assert.notEqual(cli.code, 0);
      });

      await t.step(
        "run.output notifications stream stdout and stderr while the run goes on",
        async () => {
          const events: Array<{ at: number; stream: string; text: string; runId: string }> = [];
          const stop = client.onNotification((n) => {
            if (n.method !== "run.output") return;
            const p = n.params as { runId: string; stream: string; text: string };
            events.push({ at: Date.now(), ...p });
          });
          let doc: RunDocument;
          let finished: number;
          try {
            doc = await execRpc(client, {
              source:
                `for (let i = 0; i < 4; i++) {\n  console.log("tick", i);\n  console.error("tock", i);\n` +
                `  await new Promise((resolve) => setTimeout(resolve, 150));\n}\n"end"`,
              stream: true,
            });
            finished = Date.now();
          } finally {
            stop();
          }
          assert.equal(doc.ok, true);
          const mine = events.filter((e) => e.runId === doc.runId);
          const text = (stream: string) =>
            mine.filter((e) => e.stream === stream).map((e) => e.text).join("");
          assert.equal(text("stdout"), "tick 0\ntick 1\ntick 2\ntick 3\n");
          assert.equal(text("stderr"), "tock 0\ntock 1\ntock 2\ntock 3\n");
          assert.equal(text("stdout"), doc.stdout);
          assert.ok(mine.length >= 4, `${mine.length} notifications`);
          assert.ok(
            finished - mine[0]!.at >= 300,
            "the first output arrived well before the run ended",
          );
        },
      );

      await t.step("no notifications are sent unless asked for", async () => {
        let count = 0;
        const stop = client.onNotification((n) => {
          if (n.method === "run.output") count++;
        });
        try {
          const doc = await execRpc(client, { source: `console.log("quiet"); 1` });
          assert.equal(doc.stdout, "quiet\n");
        } finally {
          stop();
        }
        assert.equal(count, 0);
      });
    } finally {
      await client.close();
    }
  });
});
