import assert from "node:assert/strict";
import { pollUntil } from "../../test/support/poll_until.ts";
import { WorkerClient } from "./worker_client.ts";

type Request = { id: number; op: "echo" | "hang" | "throw"; value?: unknown };
type Answer = { id: number; value: unknown };

function client(idleMs?: number) {
  return new WorkerClient<Request, Answer>({
    url: new URL("./testdata/echo_worker.ts", import.meta.url),
    crashed: (message) => new Error(`echo worker crashed: ${message}`),
    timedOut: (ms) => new Error(`echo worker gave no answer within ${ms} ms`),
    ...(idleMs === undefined ? {} : { idleMs }),
  });
}

Deno.test("WorkerClient.request() matches answers to requests by id", async () => {
  const echo = client();
  try {
    const answers = await Promise.all(
      [1, 2, 3].map((value) => echo.request({ op: "echo", value }, { timeoutMs: 10_000 })),
    );
    assert.deepEqual(answers.map((a) => a.value), [1, 2, 3]);
  } finally {
    echo.stop(new Error("done"));
  }
});

Deno.test("WorkerClient restarts a worker that did not answer in time", async () => {
  const echo = client();
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
    echo.stop(new Error("done"));
  }
});

Deno.test("WorkerClient fails every waiting request when the worker crashes", async () => {
  const echo = client();
  try {
    const hung = echo.request({ op: "hang" }, { timeoutMs: null });
    const broke = echo.request({ op: "throw" }, { timeoutMs: null });
    await assert.rejects(hung, /echo worker crashed: .*worker broke/);
    await assert.rejects(broke, /echo worker crashed/);
    assert.equal(echo.pendingCount, 0);
  } finally {
    echo.stop(new Error("done"));
  }
});

Deno.test("WorkerClient.stop() rejects waiting requests with its reason", async () => {
  const echo = client();
  const hung = echo.request({ op: "hang" }, { timeoutMs: null });
  echo.stop(new Error("closed by the test"));
  await assert.rejects(hung, /closed by the test/);
  assert.equal(echo.running, false);
});

Deno.test("WorkerClient terminates an idle worker after idleMs and starts one on demand", async () => {
  const echo = client(50);
  try {
    await echo.request({ op: "echo", value: 1 }, { timeoutMs: 10_000 });
    await pollUntil(
      "the idle worker to stop",
      () => Promise.resolve(echo.running ? undefined : true),
    );
    assert.equal((await echo.request({ op: "echo", value: 2 }, { timeoutMs: 10_000 })).value, 2);
  } finally {
    echo.stop(new Error("done"));
  }
});
