import assert from "node:assert/strict";
import { RunnerPool } from "./runner_pool.ts";
import type { RunnerProcess } from "./runner_process.ts";
import { pollUntil } from "../../test/support/poll_until.ts";

/** A runner whose process has already exited, as one killed by a hostile neighbour would. */
function deadRunner(): RunnerProcess {
  return {
    scriptPath: "/nowhere/script.ts",
    dir: "/nowhere",
    child: {
      status: Promise.resolve({ success: false, code: 1, signal: null }),
    } as unknown as Deno.ChildProcess,
    connection: new Promise(() => {}),
    permissions: {},
    maxMemoryMb: 64,
    kill: () => Promise.resolve(),
  };
}

Deno.test("RunnerPool backs off, doubling its wait, while fresh runners keep dying", async () => {
  const logs: string[] = [];
  let spawns = 0;
  const pool = new RunnerPool(1, () => {
    spawns++;
    return Promise.resolve(deadRunner());
  }, { log: (m) => logs.push(m) });
  pool.fill();
  const waits = () => logs.map((l) => /refilling in (\d+) ms/.exec(l)?.[1]).filter(Boolean);
  await pollUntil("three refill waits in the log", () => waits().length >= 3, { timeoutMs: 5_000 });
  await pool.close();
  assert.deepEqual(waits().slice(0, 3), ["100", "200", "400"]);
  assert.ok(spawns <= 4, `${spawns} spawns: the pool did not back off`);
});
