import type { SupervisedChild } from "../process/supervised_child.ts";
import assert from "node:assert/strict";
import { RunnerPool } from "./runner_pool.ts";
import type { RunnerProcess } from "./runner_process.ts";
import type { RunnerConnection } from "./run_channel_server.ts";
import { pollUntil } from "../../test/support/poll_until.ts";

/** A runner whose process has already exited, as one killed by a hostile neighbour would. */
function deadRunner(): RunnerProcess {
  return {
    writeScript: () => {
      throw new Error("this test runs no script");
    },
    dir: "/nowhere",
    child: {} as SupervisedChild,
    status: Promise.resolve({ success: false, code: 1, signal: null }),
    memoryPid: () => null,
    connection: new Promise(() => {}),
    endMarker: "\u0000gateway-run-end:0:",
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

/**
 * A runner alive until killed, as a fresh pooled runner is; connected at once unless
 * `connection` says when.
 */
function liveRunner(
  killed: RunnerProcess[],
  connection: Promise<RunnerConnection> = Promise.resolve({} as RunnerConnection),
): RunnerProcess {
  let exit!: (status: Deno.CommandStatus) => void;
  const status = new Promise<Deno.CommandStatus>((resolve) => (exit = resolve));
  const runner: RunnerProcess = {
    writeScript: () => {
      throw new Error("this test runs no script");
    },
    dir: "/nowhere",
    child: {} as SupervisedChild,
    status,
    memoryPid: () => null,
    connection,
    endMarker: "\u0000gateway-run-end:0:",
    permissions: {},
    maxMemoryMb: 64,
    kill: () => {
      killed.push(runner);
      exit({ success: false, code: 143, signal: "SIGTERM" });
      return Promise.resolve();
    },
  };
  return runner;
}

Deno.test("RunnerPool keeps one runner when quiet, grows with runs at once up to its size, shrinks after idleMs without runs", async () => {
  const killed: RunnerProcess[] = [];
  let spawns = 0;
  const pool = new RunnerPool(3, () => {
    spawns++;
    return Promise.resolve(liveRunner(killed));
  }, { idleMs: 100 });
  try {
    pool.fill();
    await pollUntil("one warm runner", () => Promise.resolve(pool.readyCount === 1 || undefined));
    assert.equal(pool.target, 1);
    assert.equal(spawns, 1, "a quiet pool starts one runner, not poolSize");

    // Runs back to back: one found no runner ready (the refill was still starting), so the
    // pool grows by one for the next.
    await (await pool.take()).kill();
    await (await pool.take()).kill();
    assert.equal(pool.target, 2);

    // Four runs at once: the pool grows to three (its size), not four.
    const taken = await Promise.all([pool.take(), pool.take(), pool.take(), pool.take()]);
    assert.equal(pool.target, 3);
    pool.fill();
    await pollUntil(
      "three warm runners",
      () => Promise.resolve(pool.readyCount === 3 || undefined),
    );
    for (const runner of taken) await runner.kill();

    // After idleMs without a run the runners the burst needed are stopped; one stays warm.
    await pollUntil(
      "the pool to shrink back to one",
      () => Promise.resolve(pool.target === 1 && pool.readyCount === 1 ? true : undefined),
    );
    assert.equal(killed.length, 2 + taken.length + 2, "two idle runners were stopped");
  } finally {
    await pool.close();
  }
});

Deno.test("RunnerPool with size 0 keeps no runner", async () => {
  let spawns = 0;
  const pool = new RunnerPool(0, () => {
    spawns++;
    return Promise.resolve(liveRunner([]));
  });
  pool.fill();
  assert.equal(pool.target, 0);
  assert.equal(spawns, 0);
  await pool.close();
});

Deno.test("RunnerPool: a run that finds none ready takes the runner already starting, not a new one", async () => {
  const killed: RunnerProcess[] = [];
  const starts: ((runner: RunnerProcess) => void)[] = [];
  const pool = new RunnerPool(2, () => new Promise<RunnerProcess>((r) => starts.push(r)));
  try {
    pool.fill();
    assert.equal(starts.length, 1, "one runner starting");
    const taking = pool.take();
    // The run waits: the pool grew to two and started the second at once, the run spawned none.
    assert.equal(pool.target, 2);
    assert.equal(starts.length, 2);
    const first = liveRunner(killed);
    starts[0]!(first);
    assert.equal(await taking, first, "the run got the runner that was starting");
    starts[1]!(liveRunner(killed));
    await pollUntil("the second runner ready", () => pool.readyCount === 1 || undefined);
    await first.kill();
  } finally {
    await pool.close();
  }
});

Deno.test("RunnerPool: a run that takes a runner still booting grows the pool as one that found none ready", async () => {
  const killed: RunnerProcess[] = [];
  const connect = Promise.withResolvers<RunnerConnection>();
  let spawns = 0;
  const pool = new RunnerPool(3, () => {
    spawns++;
    // The first runner is slow to boot; the later ones connect at once.
    return Promise.resolve(liveRunner(killed, spawns === 1 ? connect.promise : undefined));
  }, { idleMs: 60_000 });
  try {
    pool.fill();
    await pollUntil("one runner spawned", () => pool.readyCount === 1 || undefined);
    const booting = await pool.take();
    assert.equal(pool.target, 2, "the run waits for its runner to boot: the pool grows");
    connect.resolve({} as RunnerConnection);
    await booting.kill();
    pool.fill();
    await pollUntil("two warm runners", () => pool.readyCount === 2 || undefined);
    // A booted runner taken: no growth.
    const booted = await pool.take();
    assert.equal(pool.target, 2);
    await booted.kill();
  } finally {
    await pool.close();
  }
});

Deno.test("RunnerPool.refillAfterRun waits while a booted runner is ready, and refills at once when none is or runs come back to back", async () => {
  const killed: RunnerProcess[] = [];
  let spawns = 0;
  const spawn = () => {
    spawns++;
    return Promise.resolve(liveRunner(killed));
  };
  // A short wait, to see it end; a wait no test outlives, to see the refills that do not wait.
  const short = new RunnerPool(2, spawn, { refillAfterRunMs: 50 });
  const long = new RunnerPool(2, spawn, { refillAfterRunMs: 600_000 });
  try {
    // Grown to two by a run that found none ready; both booted.
    await (await short.take()).kill();
    short.fill();
    await pollUntil("two booted runners", () => short.readyCount === 2 || undefined);
    const before = spawns;
    // A run took one; one booted runner is still ready, so the refill waits.
    await (await short.take()).kill();
    short.refillAfterRun();
    assert.equal(spawns, before, "no runner started in the turn that answered the run");
    await pollUntil("the refill after its wait", () => spawns === before + 1 || undefined);
    await short.close();

    await (await long.take()).kill();
    long.fill();
    await pollUntil("two booted runners", () => long.readyCount === 2 || undefined);
    // Both taken: a next run would wait for a boot, so the refill comes at once.
    const both = [await long.take(), await long.take()];
    for (const runner of both) await runner.kill();
    const drained = spawns;
    long.refillAfterRun();
    await pollUntil("both started", () => spawns === drained + 2 || undefined, {
      timeoutMs: 5_000,
    });
    await pollUntil("the pool full again", () => long.readyCount === 2 || undefined);
    // A run taken right after an answer: its caller runs back to back, so its refill comes
    // at once even with a booted runner still ready (and the waiting refill gives way).
    long.refillAfterRun();
    const next = await long.take();
    await next.kill();
    const looping = spawns;
    long.refillAfterRun();
    await pollUntil("the back-to-back refill", () => spawns === looping + 1 || undefined, {
      timeoutMs: 5_000,
    });
  } finally {
    await short.close();
    await long.close();
  }
});
