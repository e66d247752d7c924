import assert from "node:assert/strict";
import { FakeClock } from "../../test/support/fake_clock.ts";
import { InMemoryTransport } from "../protocol/in_memory_transport.ts";
import { MessagePeer } from "../protocol/message_peer.ts";
import { type StartedWorker, WorkerClient } from "./worker_client.ts";

type Request = { id: number; op: "echo" | "hang" | "throw" | "noise"; value?: unknown };
type Answer = { id: number; value: unknown };

const ECHO_WORKER = new URL("./testdata/echo_worker.ts", import.meta.url);

/**
 * A worker in memory that serves the echo worker's ops as `child_worker_main.ts` would, and the
 * handles a test needs: the workers started, and a way to make the current one crash.
 */
function memoryWorkers() {
  const started: { peer: MessagePeer; closed: PromiseWithResolvers<void> }[] = [];
  const start = (): StartedWorker => {
    const [client, worker] = InMemoryTransport.pair();
    const peer = new MessagePeer(worker);
    const closed = Promise.withResolvers<void>();
    peer.onClose(() => closed.resolve());
    peer.serve("message", (params, request) => {
      const message = params as Request;
      if (message.op === "echo") request.reply({ id: request.id, value: message.value });
      if (message.op === "throw") peer.close("its process exited with code 1: worker broke");
    });
    started.push({ peer, closed });
    return { transport: client, pid: null, closed: closed.promise };
  };
  return { started, start };
}

function client(
  options: { idleMs?: number; clock?: FakeClock; memory?: ReturnType<typeof memoryWorkers> } = {},
) {
  return new WorkerClient<Request, Answer>({
    url: ECHO_WORKER,
    process: { permissions: [] },
    crashed: (message) => new Error(`echo worker crashed: ${message}`),
    timedOut: (ms) => new Error(`echo worker gave no answer within ${ms} ms`),
    ...(options.idleMs === undefined ? {} : { idleMs: options.idleMs }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.memory === undefined ? {} : { start: options.memory.start }),
  });
}

Deno.test("WorkerClient.request() matches answers to requests by id", async () => {
  const echo = client({ memory: memoryWorkers() });
  const answers = await Promise.all(
    [1, 2, 3].map((value) => echo.request({ op: "echo", value }, { timeoutMs: 10_000 })),
  );
  assert.deepEqual(answers.map((a) => a.value), [1, 2, 3]);
  await echo.stop(new Error("done"));
});

Deno.test("WorkerClient restarts a worker that did not answer in time", async () => {
  const clock = new FakeClock();
  const memory = memoryWorkers();
  const echo = client({ clock, memory });
  const hung = echo.request({ op: "hang" }, { timeoutMs: 100 });
  await clock.advance(99);
  assert.equal(echo.pendingCount, 1, "not yet");
  await clock.advance(1);
  await assert.rejects(hung, /echo worker gave no answer within 100 ms/);
  assert.equal(echo.running, false);
  await memory.started[0]!.closed.promise;
  const again = await echo.request({ op: "echo", value: "again" }, { timeoutMs: 10_000 });
  assert.equal(again.value, "again");
  assert.equal(memory.started.length, 2, "a fresh worker answered");
  await echo.stop(new Error("done"));
});

Deno.test("WorkerClient fails every waiting request when the worker crashes", async () => {
  const echo = client({ memory: memoryWorkers() });
  const hung = echo.request({ op: "hang" }, { timeoutMs: null });
  const broke = echo.request({ op: "throw" }, { timeoutMs: null });
  await assert.rejects(hung, /echo worker crashed: closed by the other side/);
  await assert.rejects(broke, /echo worker crashed/);
  assert.equal(echo.pendingCount, 0);
  assert.equal(echo.running, false);
  await echo.stop(new Error("done"));
});

Deno.test("WorkerClient.stop() rejects waiting requests with its reason", async () => {
  const echo = client({ memory: memoryWorkers() });
  const hung = echo.request({ op: "hang" }, { timeoutMs: null });
  const stopped = echo.stop(new Error("closed by the test"));
  await assert.rejects(hung, /closed by the test/);
  assert.equal(echo.running, false);
  await stopped;
});

Deno.test("WorkerClient ends an idle worker after idleMs and starts one on demand", async () => {
  const clock = new FakeClock();
  const memory = memoryWorkers();
  const echo = client({ idleMs: 50, clock, memory });
  await echo.request({ op: "echo", value: 1 }, { timeoutMs: null });
  await clock.advance(49);
  assert.equal(echo.running, true);
  await clock.advance(1);
  assert.equal(echo.running, false);
  await memory.started[0]!.closed.promise;
  assert.equal((await echo.request({ op: "echo", value: 2 }, { timeoutMs: null })).value, 2);
  assert.equal(memory.started.length, 2);
  await echo.stop(new Error("done"));
});

Deno.test("WorkerClient in a child process: answers, a crash with its exit and stderr, and an idle exit", async () => {
  const pids: (number | null)[] = [];
  const echo = new WorkerClient<Request, Answer>({
    url: ECHO_WORKER,
    process: { permissions: [] },
    crashed: (message) => new Error(`echo worker crashed: ${message}`),
    timedOut: (ms) => new Error(`echo worker gave no answer within ${ms} ms`),
    idleMs: 0,
    onStart: (worker) => pids.push(worker.pid),
  });
  try {
    assert.equal((await echo.request({ op: "echo", value: 1 }, { timeoutMs: null })).value, 1);
    const hung = echo.request({ op: "hang" }, { timeoutMs: null });
    await assert.rejects(
      echo.request({ op: "throw" }, { timeoutMs: null }),
      /echo worker crashed: its process exited with code 1: .*worker broke/s,
    );
    await assert.rejects(hung, /echo worker crashed/);
    await assert.rejects(
      echo.request({ op: "noise" }, { timeoutMs: null }),
      /echo worker crashed: a message could not be read/,
    );
    assert.equal((await echo.request({ op: "echo", value: 3 }, { timeoutMs: null })).value, 3);
    assert.equal(pids.length, 3);
    assert.ok(pids.every((pid) => typeof pid === "number"));
  } finally {
    await echo.stop(new Error("done"));
  }
  for (const pid of pids) {
    assert.throws(() => Deno.kill(pid!, "SIGCONT"), "every worker process is gone (ESRCH)");
  }
});
