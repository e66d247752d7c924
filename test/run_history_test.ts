/**
 * End-to-end proof of run history (docs/architecture.md#history): every run is in history before its result returns, with what
 * it ran and how it ended; secrets never reach the database file; and the `gateway history`
 * commands and the HTTP routes show, rerun and save runs.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { execRpc, parseRun, runTestRoot, withRunHarness } from "./support/run_test_support.ts";
import type { StoredRun } from "../src/store/run_history.ts";
import { pollUntil } from "./support/poll_until.ts";

/** A planted secret listed in `history.redact`. */
const REDACT_SECRET = "sk-test-planted-7Qx9Vb2Lm";
/** A planted secret that reaches the config through `${env:…}`. */
const ENV_SECRET = "ghp_planted0env0secret0K3w8";

interface RunSummary {
  runId: string;
  status: string;
  errorKind: string | null;
  client: string;
}

Deno.test("history records every run, redacts secrets and serves the history commands", {
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  const files = await runTestRoot({
    config: {
      history: { redact: [REDACT_SECRET] },
      tools: { probe: { settings: { apiKey: "${env:GW_TEST_SECRET}" } } },
    },
  });
  await withRunHarness({ files, env: { GW_TEST_SECRET: ENV_SECRET } }, async (gw) => {
    const client = await gw.client();
    try {
      await t.step("a run is in history when its result arrives, with what it ran", async () => {
        const doc = await execRpc(client, {
          source: `const got = await tools.probe.echo({ nonce: args[0]! });\n` +
            `try { await tools.probe.fail({ message: "expected" }); } catch { /* handled */ }\n` +
            `console.log(stdin().text());\ngot.nonce + args[1]`,
          args: ["n-1", "-x"],
          stdin: "piped text\n",
          cwd: gw.cwd,
          client: "history-test",
        });
        assert.equal(doc.ok, true, JSON.stringify(doc.error));
        assert.equal(doc.history, "saved");
        const stored = await client.request<StoredRun>("history.get", { id: doc.runId });
        assert.equal(stored.runId, doc.runId);
        assert.match(stored.source, /tools\.probe\.echo/);
        assert.deepEqual(stored.args, ["n-1", "-x"]);
        assert.equal(stored.stdinBytes, 11);
        assert.equal(stored.cwd, gw.cwd);
        assert.equal(stored.client, "history-test");
        assert.equal(stored.status, "ok");
        assert.equal(stored.errorKind, null);
        assert.equal(stored.stdout, "piped text\n");
        assert.equal(stored.result, JSON.stringify("n-1-x"));
        assert.deepEqual(
          stored.toolCalls.map((c) => [c.namespace, c.tool, c.ok, c.errorKind]),
          [["probe", "echo", true, null], ["probe", "fail", false, "ToolError"]],
        );
        // Each call's answer is kept for the run details: JSON of a value, a failure's message.
        assert.equal(stored.toolCalls[0]?.result, JSON.stringify({ nonce: "n-1" }));
        assert.match(stored.toolCalls[1]?.result ?? "", /expected/);
        const show = await gw.cli(["history", "show", doc.runId]);
        assert.equal(show.code, 0, show.stderr);
        assert.match(show.stdout, /\nprobe\.echo \d+ ms ok → \{"nonce":"n-1"\}\n/);
        assert.match(show.stdout, /\nprobe\.fail \d+ ms ToolError → [^\n]*expected[^\n]*\n/);
        const failed = await execRpc(client, {
          source: `await tools.probe.fail({ message: "no" })`,
        });
        const storedFailure = await client.request<StoredRun>("history.get", { id: failed.runId });
        assert.equal(storedFailure.status, "failed");
        assert.equal(storedFailure.errorKind, "ToolError");
        assert.match(storedFailure.errorMessage ?? "", /no/);
      });

      await t.step("runs refused before start are recorded too", async () => {
        const refused = await execRpc(client, { source: "1", permissions: { net: true } });
        assert.equal(refused.error?.kind, "PermissionRefused");
        const stored = await client.request<StoredRun>("history.get", { id: refused.runId });
        assert.equal(stored.errorKind, "PermissionRefused");
        const syntax = await execRpc(client, { source: "const = ;" });
        const storedSyntax = await client.request<StoredRun>("history.get", { id: syntax.runId });
        assert.equal(storedSyntax.errorKind, "SyntaxError");
      });

      await t.step(
        "secrets from history.redact and ${env:…} never reach the database files",
        async () => {
          const doc = await execRpc(client, {
            source:
              `const a = ${JSON.stringify(REDACT_SECRET)};\nconst b = ${
                JSON.stringify(ENV_SECRET)
              };\n` +
              `console.log("out", a, b);\nconsole.error("err", a, b);\n` +
              `await tools.probe.echo({ nonce: b });\n[a, b, args[0]]`,
            args: [`arg-${REDACT_SECRET}`],
          });
          assert.equal(doc.ok, true, JSON.stringify(doc.error));
          // The caller's own arguments reach the script as given; what leaves the server (the
          // run document) has every configured secret masked.
          assert.deepEqual(doc.result, ["[REDACTED]", "[REDACTED]", "arg-[REDACTED]"]);
          const failed = await execRpc(client, {
            source: `throw new Error("leaked ${ENV_SECRET} in a message")`,
          });
          assert.equal(failed.error?.kind, "ScriptError");
          const stored = await client.request<StoredRun>("history.get", { id: doc.runId });
          assert.equal(stored.stdout, "out [REDACTED] [REDACTED]\n");
          assert.equal(stored.stderr, "err [REDACTED] [REDACTED]\n");
          assert.ok(!stored.source.includes(REDACT_SECRET) && !stored.source.includes(ENV_SECRET));
          assert.deepEqual(stored.args, ["arg-[REDACTED]"]);
          assert.equal(stored.toolCalls[0]?.result, JSON.stringify({ nonce: "[REDACTED]" }));
          const storedFailure = await client.request<StoredRun>("history.get", {
            id: failed.runId,
          });
          assert.equal(storedFailure.errorMessage, "Error: leaked [REDACTED] in a message");
          let storedText = "";
          for (const suffix of ["", "-wal", "-shm"]) {
            let bytes: Uint8Array;
            try {
              bytes = await Deno.readFile(join(gw.dataDir, `gateway.db${suffix}`));
            } catch (error) {
              if (error instanceof Deno.errors.NotFound) continue;
              throw error;
            }
            const text = new TextDecoder("latin1").decode(bytes);
            storedText += text;
            for (const secret of [REDACT_SECRET, ENV_SECRET]) {
              assert.ok(!text.includes(secret), `gateway.db${suffix} holds ${secret}`);
            }
          }
          assert.ok(
            storedText.includes("out [REDACTED] [REDACTED]"),
            "the grep saw the stored run",
          );
          const log = await Deno.readTextFile(join(gw.dataDir, "server.log")).catch(() => "");
          for (const secret of [REDACT_SECRET, ENV_SECRET]) {
            assert.ok(!log.includes(secret), `server.log holds ${secret}`);
          }
        },
      );

      await t.step(
        "gateway history lists runs; --failed and --json filter and format",
        async () => {
          const ok = parseRun((await gw.cli(["exec", "--json", `"listed run"`])).stdout);
          const bad = parseRun(
            (await gw.cli(["exec", "--json", `throw new Error("listed failure")`])).stdout,
          );
          const list = await gw.cli(["history", "--limit", "5"]);
          assert.equal(list.code, 0);
          const lines = list.stdout.trim().split("\n");
          assert.ok(lines[0]!.startsWith(bad.runId) && lines[0]!.includes("failed ScriptError"));
          assert.ok(lines[1]!.startsWith(ok.runId) && / ok /.test(lines[1]!));
          assert.match(lines[1]!, /"listed run"/);
          const failedOnly = await gw.cli(["history", "--failed", "--json"]);
          const failedRuns = (JSON.parse(failedOnly.stdout) as { runs: RunSummary[] }).runs;
          assert.ok(failedRuns.length > 0);
          assert.ok(failedRuns.every((r) => r.status === "failed"));
          assert.equal(failedRuns[0]!.runId, bad.runId);
          assert.equal(failedRuns[0]!.client, "cli");
          const json = JSON.parse((await gw.cli(["history", "--json", "--limit", "2"])).stdout) as {
            runs: RunSummary[];
          };
          assert.deepEqual(json.runs.map((r) => r.runId), [bad.runId, ok.runId]);
        },
      );

      await t.step("history show, rerun and save, then gateway run NAME", async () => {
        const first = await gw.cli([
          "exec",
          "--json",
          `console.log("hello from", args.join("+")); 7 * 6`,
          "--",
          "a",
          "b",
        ]);
        const doc = parseRun(first.stdout);
        assert.equal(doc.ok, true, first.stderr);
        const show = await gw.cli(["history", "show", doc.runId.slice(0, 10)]);
        assert.equal(show.code, 0);
        assert.match(show.stdout, new RegExp(`^run ${doc.runId}: ok\\n`));
        assert.match(
          show.stdout,
          /--- source\nconsole\.log\("hello from", args\.join\("\+"\)\); 7 \* 6\n/,
        );
        assert.match(show.stdout, /--- args\na b\n/);
        assert.match(show.stdout, /--- stdout\nhello from a\+b\n/);
        assert.match(show.stdout, /--- result\n42\n/);
        const showJson = JSON.parse(
          (await gw.cli(["history", "show", doc.runId, "--json"])).stdout,
        );
        assert.equal(showJson.runId, doc.runId);
        const rerun = await gw.cli(["history", "rerun", doc.runId, "--json"]);
        const again = parseRun(rerun.stdout);
        assert.notEqual(again.runId, doc.runId);
        assert.equal(again.stdout, "hello from a+b\n");
        assert.equal(again.result, 42);
        const saved = await gw.cli(["history", "save", doc.runId, "answer"]);
        assert.equal(saved.code, 0, saved.stderr);
        assert.match(saved.stdout, /saved run .* as .*scripts\/answer\.ts/);
        const named = await pollUntil("the saved script to run by name", async () => {
          const r = await gw.cli(["run", "answer", "x", "y"]);
          return r.code === 0 ? r : null;
        }, { timeoutMs: 5000 });
        // What was saved is what runs, and prints: its stdout, then its result, as exec did.
        assert.equal(named.stdout, "hello from x+y\n42\n");
        const bad = parseRun((await gw.cli(["exec", "--json", `throw new Error("no")`])).stdout);
        const refused = await gw.cli(["history", "save", bad.runId, "broken"]);
        assert.equal(refused.code, 2);
        assert.match(refused.stderr, /only a run that worked can be saved/);
        const missing = await gw.cli(["history", "show", "zzzzzzzzzz"]);
        assert.notEqual(missing.code, 0);
        assert.match(missing.stderr, /No run "zzzzzzzzzz"/);
      });

      await t.step("HTTP GET /history and /history/:id answer with the stored runs", async () => {
        const { port, token } = await gw.server();
        const doc = await execRpc(client, { source: `"over http"` });
        const headers = { Authorization: `Bearer ${token}` };
        const list = await fetch(`http://127.0.0.1:${port}/history?limit=3`, { headers });
        assert.equal(list.status, 200);
        const body = await list.json() as { result?: { runs: RunSummary[] }; runs?: RunSummary[] };
        const runs = body.runs ?? body.result?.runs ?? [];
        assert.equal(runs[0]?.runId, doc.runId);
        const one = await fetch(`http://127.0.0.1:${port}/history/${doc.runId}`, { headers });
        assert.equal(one.status, 200);
        const oneBody = await one.json() as StoredRun & { result?: unknown };
        const stored = (typeof oneBody.runId === "string" ? oneBody : oneBody.result) as StoredRun;
        assert.equal(stored.runId, doc.runId);
        assert.equal(stored.result, JSON.stringify("over http"));
        const failedOnly = await fetch(`http://127.0.0.1:${port}/history?failed=true`, { headers });
        const failedBody = await failedOnly.json() as {
          runs?: RunSummary[];
          result?: { runs: RunSummary[] };
        };
        assert.ok(
          (failedBody.runs ?? failedBody.result?.runs ?? []).every((r) => r.status === "failed"),
        );
        const anonymous = await fetch(`http://127.0.0.1:${port}/history`);
        assert.equal(anonymous.status, 401);
        await anonymous.body?.cancel();
      });
    } finally {
      await client.close();
    }
  });
});
