/**
 * A script's runner attacked from inside (a busy loop, a call over the channel's limit, a call
 * of tens of megabytes) and the server killed under it: a busy runner dies with its server's
 * `kill -9` (the kernel's parent-death signal, not a poll), with the operating-system sandbox
 * and without it; a call the
 * channel refuses leaves nothing waiting, so the run ends as soon as its script does; a 15 MB
 * argument and a 15 MB result cross the channel whole.
 * @module
 */

import assert from "node:assert/strict";
import { findOsSandboxTools } from "../src/process/os_sandbox.ts";
import { pollUntil } from "./support/poll_until.ts";
import {
  execRpc,
  killPids,
  processesMatching,
  type RunningDocument,
  runTestRoot,
  startForegroundServer,
  withRunHarness,
} from "./support/run_test_support.ts";

const tools = await findOsSandboxTools();

/** CPU time a process has used, in ms (Linux: /proc/PID/stat utime + stime), 0 when gone. */
function cpuMs(pid: number): number {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}
const MODES = [
  { osSandbox: "off", ignore: Deno.build.os !== "linux" || tools.setpriv === null },
  { osSandbox: "required", ignore: tools.sandbox.kind !== "bwrap" },
] as const;

for (const { osSandbox, ignore } of MODES) {
  Deno.test({
    name:
      `a runner busy in while(true){} dies with its server's kill -9 (exec.osSandbox ${osSandbox})`,
    ignore,
    sanitizeOps: false,
    sanitizeResources: false,
  }, async () => {
    const files = await runTestRoot({
      config: { exec: { osSandbox, timeoutMs: 120_000, poolSize: 1 } },
    });
    await withRunHarness({ files }, async (gw) => {
      const server = await startForegroundServer(gw);
      // Every runner of this server (bwrap and the Deno inside it, the busy one and the pooled
      // one): their command lines name the runner and deny this data dir.
      const runners = () =>
        processesMatching("runner_main.bundle.js").filter((pid) => {
          try {
            return Deno.readTextFileSync(`/proc/${pid}/cmdline`).includes(gw.dataDir);
          } catch {
            return false;
          }
        });
      try {
        const client = await gw.client();
        const running = await client.request<RunningDocument>("exec", {
          source: "while (true) {}",
          check: false,
          yieldAfterMs: 300,
        });
        assert.equal(running.status, "running", JSON.stringify(running));
        // Busy: a runner has spent a quarter of a second of CPU in the loop.
        await pollUntil(
          "a runner to be busy in the loop",
          () => runners().some((pid) => cpuMs(pid) > 250),
        );
        client.close();
        Deno.kill(server.pid, "SIGKILL");
        await server.status;
        await pollUntil("every runner to die with the server", () => runners().length === 0, {
          last: () => runners(),
        });
      } finally {
        killPids([server.pid, ...runners()]);
      }
    });
  });
}

Deno.test(
  "a call over the channel's limit that the script catches ends the run when the script ends, not at its timeout",
  {
    sanitizeOps: false,
    sanitizeResources: false,
  },
  async () => {
    const files = await runTestRoot({ config: { exec: { timeoutMs: 60_000 } } });
    await withRunHarness({ files }, async (gw) => {
      const client = await gw.client();
      try {
        const document = await execRpc(client, {
          source: `let caught = "";
        try { await tools.probe.echo({ nonce: "x".repeat(17 * 1024 * 1024) }); }
        catch (error) { caught = (error as Error).message; }
        caught`,
        });
        assert.equal(document.ok, true, JSON.stringify(document).slice(0, 2000));
        assert.match(String(document.result), /over the gateway channel's limit/);
      } finally {
        client.close();
      }
    });
  },
);

Deno.test("a 15 MB argument and a 15 MB result cross the run's channel whole", {
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const files = await runTestRoot({ config: { exec: { timeoutMs: 60_000 } } });
  await withRunHarness({ files }, async (gw) => {
    const client = await gw.client();
    try {
      const document = await execRpc(client, {
        source: `const nonce = "ab".repeat(7_500_000);
        const back = await tools.probe.echo({ nonce });
        [back.nonce.length, back.nonce === nonce]`,
      });
      assert.deepEqual(document.result, [15_000_000, true], JSON.stringify(document.error));
    } finally {
      client.close();
    }
  });
});
