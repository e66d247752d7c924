import assert from "node:assert/strict";
import { pollUntil } from "../../test/support/poll_until.ts";
import { WorkerClient } from "./worker_client.ts";
import { ChildProcessWorker } from "./child_process_worker.ts";

type Request = { id: number; op: "echo" | "hang" | "throw" | "noise"; value?: unknown };
type Answer = { id: number; value: unknown };

type Mode = "worker" | "process";

function client(mode: Mode, idleMs?: number, onStart?: (pid: number) => void) {
  return new WorkerClient<Request, Answer>({
    url: new URL("./testdata/echo_worker.ts", import.meta.url),
    ...(mode === "process" ? { process: { permissions: [] } } : {}),
    onStart: (worker) => {
      if (worker instanceof ChildProcessWorker) onStart?.(worker.pid);
    },
    crashed: (message) => new Error(`echo worker crashed: ${message}`),
    timedOut: (ms) => new Error(`echo worker gave no answer within ${ms} ms`),
    ...(idleMs === undefined ? {} : { idleMs }),
  });
}

for (const mode of ["worker", "process"] as const) {
  Deno.test(`${mode}: WorkerClient.request() matches answers to requests by id`, async () => {
    const echo = client(mode);
    try {
      const answers = await Promise.all(
        [1, 2, 3].map((value) => echo.request({ op: "echo", value }, { timeoutMs: 10_000 })),
      );
      assert.deepEqual(answers.map((a) => a.value), [1, 2, 3]);
    } finally {
      await echo.stop(new Error("done"));
    }
  });

  Deno.test(`${mode}: WorkerClient restarts a worker that did not answer in time`, async () => {
    const echo = client(mode);
    try {
      await assert.rejects(
        echo.request({ op: "hang" }, { timeoutMs: 100 }),
        /echo worker gave no answer within 100 ms/,
      );
      assert.equal(echo.running, false);
      assert.equal(
        (await echo.request({ op: "echo", value: "again" }, { timeoutMs: 10_000 })).value,
        "again",
      );
    } finally {
      await echo.stop(new Error("done"));
    }
  });

  Deno.test(`${mode}: WorkerClient fails every waiting request when the worker crashes`, async () => {
    const echo = client(mode);
    try {
      const hung = echo.request({ op: "hang" }, { timeoutMs: null });
      const broke = echo.request({ op: "throw" }, { timeoutMs: null });
      await assert.rejects(hung, /echo worker crashed: .*worker broke/);
      await assert.rejects(broke, /echo worker crashed/);
      assert.equal(echo.pendingCount, 0);
    } finally {
      await echo.stop(new Error("done"));
    }
  });

  Deno.test(`${mode}: WorkerClient.stop() rejects waiting requests with its reason`, async () => {
    const echo = client(mode);
    const hung = echo.request({ op: "hang" }, { timeoutMs: null });
    const stopped = echo.stop(new Error("closed by the test"));
    await assert.rejects(hung, /closed by the test/);
    assert.equal(echo.running, false);
    await stopped;
  });

  Deno.test(`${mode}: WorkerClient terminates an idle worker after idleMs and starts one on demand`, async () => {
    const echo = client(mode, 50);
    try {
      await echo.request({ op: "echo", value: 1 }, { timeoutMs: 10_000 });
      await pollUntil(
        "the idle worker to stop",
        () => Promise.resolve(echo.running ? undefined : true),
      );
      assert.equal((await echo.request({ op: "echo", value: 2 }, { timeoutMs: 10_000 })).value, 2);
    } finally {
      await echo.stop(new Error("done"));
    }
  });
}

Deno.test("process: an idle worker's process exits, so its memory goes back", async () => {
  const pids: number[] = [];
  const echo = client("process", 50, (pid) => pids.push(pid));
  try {
    await echo.request({ op: "echo", value: 1 }, { timeoutMs: 10_000 });
    const [pid] = pids;
    assert.ok(pid !== undefined);
    await pollUntil("the idle worker's process to exit", () => {
      try {
        Deno.kill(pid, "SIGCONT");
        return Promise.resolve(undefined);
      } catch {
        return Promise.resolve(true); // ESRCH: gone
      }
    });
  } finally {
    await echo.stop(new Error("done"));
  }
});

Deno.test("process: a line that is not a message fails the waiting requests and restarts", async () => {
  const echo = client("process");
  try {
    await assert.rejects(
      echo.request({ op: "noise" }, { timeoutMs: 10_000 }),
      /echo worker crashed: a message could not be read/,
    );
    assert.equal(echo.running, false);
    assert.equal((await echo.request({ op: "echo", value: 3 }, { timeoutMs: 10_000 })).value, 3);
  } finally {
    await echo.stop(new Error("done"));
  }
});
