/**
 * End-to-end proof of the run limits (docs/architecture.md#limits): the whole process group dies at the deadline
 * (children too), a 100 MB stdout flood leaves the server's memory bounded, stdout and stderr
 * are both kept, source size, tool-call concurrency, unawaited rejections, in-flight calls
 * cancelled when a run ends, and per-run overrides only within the config's bounds.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import type { GatewayClient } from "../src/client/gateway_client.ts";
import { RpcError } from "../src/protocol/json_rpc.ts";
import {
  execRpc,
  liveGroupMembers,
  processAlive,
  processesMatching,
  residentKb,
  type RunDocument,
  runTestRoot,
  withRunHarness,
} from "./support/run_test_support.ts";
import { pollUntil } from "./support/poll_until.ts";

const MAX_SOURCE_BYTES = 4096;

/** Runs `source` streamed; `onStdout` sees the stdout so far after each chunk. */
async function streamedRun(
  client: GatewayClient,
  params: Record<string, unknown>,
  onStdout: (text: string) => void,
): Promise<RunDocument> {
  let text = "";
  const stop = client.onNotification((n) => {
    if (n.method !== "run.output") return;
    const p = n.params as { stream: string; text: string };
    if (p.stream !== "stdout") return;
    text += p.text;
    onStdout(text);
  });
  try {
    return await execRpc(client, { ...params, stream: true });
  } finally {
    stop();
  }
}

Deno.test("run limits hold end to end", {
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  const files = await runTestRoot({
    config: {
      exec: {
        maxPermissions: { run: ["sleep"] },
        maxConcurrentCalls: 3,
        maxSourceBytes: MAX_SOURCE_BYTES,
        timeoutMs: 60_000,
      },
    },
  });
  await withRunHarness({ files }, async (gw) => {
    const client = await gw.client();
    const leftovers: number[] = [];
    try {
      await t.step(
        "a script that forks sleep 300 and spins is gone with its child by deadline + 2 s",
        async () => {
          for (
            const prelude of [
              "",
              // Ignoring TERM only delays the KILL that follows the grace period.
              `Deno.addSignalListener("SIGTERM", () => console.log("ignored TERM"));\n`,
            ]
          ) {
            let pids: { runner: number; sleep: number } | null = null;
            let sleepAliveDuringRun = false;
            const timeoutMs = 1500;
            // A sleep no other process runs: found by its command line, as this process sees
            // it (inside the OS sandbox the script's pids are those of its own namespace).
            const seconds = `300.${crypto.getRandomValues(new Uint32Array(1))[0]}`;
            const sent = Date.now();
            let started = false;
            const running = streamedRun(client, {
              source: prelude +
                `const child = new Deno.Command("sleep", { args: ["${seconds}"] }).spawn();\n` +
                `console.log("started");\n` +
                `while (true) {}`,
              permissions: { run: ["sleep"] },
              timeoutMs,
            }, (text) => (started ||= text.includes("started")));
            let over = false;
            running.finally(() => (over = true)).catch(() => {});
            // Found while the run spins: the sleep (exec'd by now) and its parent, the runner.
            await pollUntil("the script's sleep, or the run's end", () => {
              if (over) return true;
              const sleep = started ? processesMatching(`sleep ${seconds}`)[0] : undefined;
              if (sleep === undefined) return false;
              const stat = Deno.readTextFileSync(`/proc/${sleep}/stat`);
              const runner = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
              pids = { runner, sleep };
              leftovers.push(runner, sleep);
              sleepAliveDuringRun = processAlive(sleep);
              return true;
            }, { timeoutMs: 10_000, intervalMs: 10 });
            const doc = await running;
            assert.equal(doc.error?.kind, "Timeout");
            assert.equal(doc.exitCode === 0, false);
            const seen = pids as { runner: number; sleep: number } | null;
            assert.ok(seen, `the script started its sleep: ${JSON.stringify(doc.stdout)}`);
            assert.ok(sleepAliveDuringRun, "sleep 300 was running before the deadline");
            // The deadline is at most `sent + timeoutMs`; everything must be gone 2 s after it.
            const limit = sent + timeoutMs + 2000;
            await pollUntil(
              "the runner and everything it started to be gone",
              () =>
                !processAlive(seen.runner) && liveGroupMembers(seen.runner).length === 0 &&
                !processAlive(seen.sleep),
              {
                timeoutMs: Math.max(0, limit - Date.now()),
                intervalMs: 20,
              },
            );
          }
        },
      );

      await t.step(
        "100 MB to stdout or stderr leaves the server's memory bounded and is capped",
        async () => {
          const { pid } = await gw.server();
          for (const [stream, other] of [["stdout", "stderr"], ["stderr", "stdout"]] as const) {
            const before = residentKb(pid);
            assert.ok(before !== null);
            let peak = before;
            let sampling = true;
            const sampler = (async () => {
              while (sampling) {
                peak = Math.max(peak, residentKb(pid) ?? 0);
                await new Promise((r) => setTimeout(r, 10));
              }
            })();
            let doc: RunDocument;
            try {
              doc = await execRpc(client, {
                source:
                  `const chunk = new TextEncoder().encode(("x".repeat(1023) + "\\n").repeat(1024));\n` +
                  `for (let i = 0; i < 100; i++) Deno.${stream}.writeSync(chunk);\n` +
                  `Deno.${other}.writeSync(new TextEncoder().encode("${other} survives the flood\\n"));\n` +
                  `"finished"`,
              });
            } finally {
              sampling = false;
              await sampler;
            }
            const after = residentKb(pid)!;
            const grew = (kb: number) => `${stream}: server RSS grew ${kb >> 10} MB`;
            assert.ok(peak - before < 100 * 1024, grew(peak - before));
            assert.ok(after - before < 100 * 1024, grew(after - before));
            assert.equal(doc.ok, true, JSON.stringify(doc.error));
            assert.equal(doc.result, "finished");
            assert.equal(doc.stdoutTruncated, stream === "stdout");
            assert.equal(doc[other], `${other} survives the flood\n`);
            const [notice, ...rest] = doc[stream].split("\n");
            assert.equal(
              notice,
              `[gateway: ${stream} truncated: 65536 of 104857600 bytes kept; ` +
                `history keeps the first 1048576 bytes: gateway history show ${doc.runId}]`,
            );
            assert.equal(new TextEncoder().encode(rest.join("\n")).length, 65536);
            assert.match(rest[0]!, /^x{1023}$/);
            const stored = await client.request<Record<string, string>>("history.get", {
              id: doc.runId,
            });
            assert.equal(stored[stream]!.length, 1024 * 1024, "history keeps the capped output");
            assert.ok(stored[stream]!.startsWith("x".repeat(1023) + "\n"));
            assert.equal(stored[other], `${other} survives the flood\n`);
          }
        },
      );

      await t.step("stdout and stderr are both kept on success and on failure", async () => {
        const body = `console.log("to stdout");\nconsole.error("to stderr");\n`;
        const ok = await execRpc(client, { source: body + `"fine"` });
        assert.equal(ok.ok, true);
        const failed = await execRpc(client, { source: body + `throw new Error("after output")` });
        assert.equal(failed.error?.kind, "ScriptError");
        for (const doc of [ok, failed]) {
          assert.equal(doc.stdout, "to stdout\n");
          assert.equal(doc.stderr, "to stderr\n");
          const stored = await client.request<{ stdout: string; stderr: string }>("history.get", {
            id: doc.runId,
          });
          assert.equal(stored.stdout, "to stdout\n");
          assert.equal(stored.stderr, "to stderr\n");
        }
        const cli = await gw.cli(["exec", body + `throw new Error("after output")`]);
        assert.equal(cli.code, 1);
        assert.equal(cli.stdout, "to stdout\n");
        assert.match(cli.stderr, /^to stderr\nerror\[ScriptError\]: Error: after output/);
      });

      await t.step("source larger than exec.maxSourceBytes is refused before it runs", async () => {
        const source = `console.log("ran");\n// ${"y".repeat(MAX_SOURCE_BYTES)}\n`;
        const result = await gw.cli(["exec", "--json", source]);
        assert.equal(result.code, 1);
        const doc = JSON.parse(result.stdout) as RunDocument;
        assert.equal(doc.ok, false);
        assert.match(doc.error?.message ?? "", /exec\.maxSourceBytes \(4096 bytes\)/);
        assert.equal(doc.stdout, "");
        assert.equal(doc.exitCode, null);
      });

      await t.step("tool calls beyond maxConcurrentCalls queue and all complete", async () => {
        await execRpc(client, { source: `await tools.probe.maxInFlight()` });
        const doc = await execRpc(client, {
          source: `const all = await Promise.all(\n` +
            `  Array.from({ length: 12 }, () => tools.probe.track({ ms: 100 })),\n);\n` +
            `({ done: all.length, max: (await tools.probe.maxInFlight()).max })`,
        });
        assert.equal(doc.ok, true, JSON.stringify(doc.error));
        assert.deepEqual(doc.result, { done: 12, max: 3 });
        assert.equal(doc.toolCalls, 13);
      });

      await t.step("a promise rejected and never awaited appears in warnings", async () => {
        const doc = await execRpc(client, {
          source: `Promise.reject(new Error("nobody waits for me"));\n` +
            `tools.probe.fail({ message: "unawaited tool failure" });\n` +
            `await new Promise((resolve) => setTimeout(resolve, 300));\n"done"`,
        });
        assert.equal(doc.ok, true);
        assert.equal(doc.result, "done");
        assert.equal(doc.warnings.length, 2, JSON.stringify(doc.warnings));
        assert.match(
          doc.warnings[0]!,
          /Unhandled promise rejection \(line 1\): .*nobody waits for me/,
        );
        assert.match(doc.warnings[1]!, /unawaited tool failure/);
      });

      await t.step("a run that ends cancels its in-flight tool calls", async () => {
        const timedOut = join(gw.cwd, "timed-out.marker");
        const doc = await execRpc(client, {
          source: `tools.probe.waitForAbort({ marker: ${JSON.stringify(timedOut)} });\n` +
            `await new Promise((resolve) => setTimeout(resolve, 100));\nwhile (true) {}`,
          timeoutMs: 800,
        });
        assert.equal(doc.error?.kind, "Timeout");
        await pollUntil(
          "the timed-out run's call to be aborted",
          () => Deno.stat(timedOut).then(() => true, () => false),
        );
        const failed = join(gw.cwd, "failed.marker");
        const thrown = await execRpc(client, {
          source: `tools.probe.waitForAbort({ marker: ${JSON.stringify(failed)} });\n` +
            `await new Promise((resolve) => setTimeout(resolve, 100));\nthrow new Error("bail out");`,
        });
        assert.equal(thrown.error?.kind, "ScriptError");
        await pollUntil(
          "the failed run's call to be aborted",
          () => Deno.stat(failed).then(() => true, () => false),
        );
      });

      await t.step(
        "a run timed out while awaiting a call names that call and its line",
        async () => {
          const marker = join(gw.cwd, "awaited.marker");
          const doc = await execRpc(client, {
            source: `const note = "first line";\n` +
              `await tools.probe.waitForAbort({ marker: ${JSON.stringify(marker)} });`,
            // Long enough for the run to reach its call on a loaded machine: the call waits
            // for the abort, so the timeout is all this step takes.
            timeoutMs: 2_000,
          });
          assert.equal(doc.error?.kind, "Timeout");
          assert.match(
            doc.error?.message ?? "",
            /while waiting for probe\.waitForAbort \(line 2\)/,
          );
          assert.equal(doc.error?.line, 2);
        },
      );

      await t.step("per-run limits may be lowered but not raised past the config", async () => {
        const lowered = await execRpc(client, {
          source: `"ok"`,
          timeoutMs: 5000,
          maxOutputBytes: 10,
        });
        assert.equal(lowered.ok, true);
        await assert.rejects(
          execRpc(client, { source: `1`, timeoutMs: 120_000 }),
          (error: unknown) =>
            error instanceof RpcError && error.code === -32602 &&
            /"timeoutMs" 120000 is above the configured exec\.timeoutMs \(60000\)/.test(
              error.message,
            ),
        );
        const capped = await execRpc(client, {
          source: `console.log("a".repeat(50)); 1`,
          maxOutputBytes: 10,
        });
        assert.equal(capped.stdoutTruncated, true);
        assert.match(
          capped.stdout,
          /^\[gateway: stdout truncated: 10 of 51 bytes kept; full text: gateway history show \w+\]\n/,
        );
        assert.ok(capped.stdout.endsWith("\naaaaaaaaaa"));
      });
    } finally {
      await client.close();
      for (const pid of leftovers) {
        try {
          Deno.kill(pid, "SIGKILL");
        } catch {
          // gone, as it should be
        }
      }
    }
  });
});
