import assert from "node:assert/strict";
import { FakeClock } from "../../../test/support/fake_clock.ts";
import {
  ADMIT_PATIENCE_MS,
  BLOCKED_MS,
  type LoadRequest,
  type ModuleWorker,
  PING_MS,
  SharedHostModules,
  type SharedHostNotice,
  type WorkerLoadMessage,
} from "./shared_host_modules.ts";

/** A Worker in the test's hands: what it was told, and a way to post as it. */
interface FakeWorker extends ModuleWorker {
  permissions: Deno.PermissionOptions;
  loads: WorkerLoadMessage[];
  unloads: number[];
  terminated: boolean;
  /** Whether it answers pings (a Worker blocked by an import does not). */
  answers: boolean;
  post(data: unknown): void;
  fail(message: string): void;
}

function host() {
  const clock = new FakeClock();
  const notices: SharedHostNotice[] = [];
  const workers: FakeWorker[] = [];
  let refuse: string | null = null;
  const modules = new SharedHostModules({
    notify: (notice) => notices.push(notice),
    clock,
    startWorker: (permissions, events) => {
      if (refuse !== null) throw new Error(refuse);
      const worker: FakeWorker = {
        permissions,
        loads: [],
        unloads: [],
        terminated: false,
        answers: true,
        load: (message) => worker.loads.push(message),
        unload: (module) => worker.unloads.push(module),
        ping: (answered) => {
          if (worker.answers) answered();
        },
        terminate: () => (worker.terminated = true),
        post: (data) => events.post(data),
        fail: (message) => events.failed(message),
      };
      workers.push(worker);
      return worker;
    },
  });
  return {
    clock,
    notices,
    workers,
    modules,
    refuseWorkers: (why: string) => (refuse = why),
  };
}

function request(worker: number, overrides: Partial<LoadRequest> = {}): LoadRequest {
  return {
    worker,
    moduleUrl: `file:///root/tools/m${worker}.ts`,
    permissions: "inherit",
    env: { GATEWAY_TOOL_SETTINGS: "{}" },
    socket: "/run/gateway/tools-1/s",
    token: `token-${worker}`,
    ...overrides,
  };
}

Deno.test("SharedHostModules puts modules with full permissions and the same settings in one Worker, a restricted one alone", () => {
  const { modules, workers } = host();
  modules.load(request(1));
  modules.load(request(2));
  modules.load(request(3, { permissions: { read: ["/data"], net: false } }));
  modules.load(request(4, { env: { GATEWAY_TOOL_SETTINGS: '{"other":1}' } }));
  assert.deepEqual(modules.placements(), [[1, 2], [3], [4]]);
  assert.equal(workers[0]!.permissions, "inherit");
  // The restricted Worker gets the socket's grants, and is told to revoke them once connected.
  const restricted = workers[1]!;
  assert.deepEqual((restricted.permissions as { read: string[] }).read, [
    "/data",
    "/run/gateway/tools-1/s",
  ]);
  assert.deepEqual(restricted.loads[0]!.revoke.map((d) => d.name).sort(), [
    "net",
    "read",
    "write",
  ]);
});

Deno.test("SharedHostModules imports one module at a time per Worker and announces each outcome once", () => {
  const { modules, workers, notices } = host();
  modules.load(request(1));
  modules.load(request(2));
  const worker = workers[0]!;
  assert.deepEqual(worker.loads.map((l) => [l.module, l.placement]), [[1, 1]], "2 waits its turn");
  worker.post({ type: "ready", module: 1, exports: ["get"] });
  assert.deepEqual(worker.loads.map((l) => l.module), [1, 2]);
  worker.post({
    type: "load_error",
    module: 2,
    error: { message: "boom", data: { name: "TypeError", stack: "at x", extra: 1 } },
  });
  assert.deepEqual(notices, [
    { type: "ready", worker: 1, exports: ["get"] },
    {
      type: "load_error",
      worker: 2,
      error: { message: "boom", data: { name: "TypeError", stack: "at x" } },
    },
  ]);
});

Deno.test("SharedHostModules takes from a Worker's posts only what speaks for its own importing modules", () => {
  const { modules, workers, notices } = host();
  modules.load(request(1));
  modules.load(request(5, { permissions: { net: false } }));
  const [shared, other] = workers;
  shared!.post({ type: "ready", module: 5, exports: ["x"] }); // another Worker's module
  shared!.post({ type: "ready", module: 1, exports: "not a list" });
  shared!.post({ type: "ready", module: 1, exports: [1, 2] });
  shared!.post({ type: "load_error", module: 1, error: "not an error" });
  shared!.post({ type: "exit", module: 1, code: "3" });
  shared!.post("garbage");
  shared!.post(null);
  assert.deepEqual(notices, []);
  shared!.post({ type: "ready", module: 1, exports: ["ok"] });
  shared!.post({ type: "ready", module: 1, exports: ["again"] }); // not importing any more
  other!.post({ type: "log", line: "hello" });
  assert.deepEqual(notices, [
    { type: "ready", worker: 1, exports: ["ok"] },
    { type: "log", worker: 5, line: "hello" },
  ]);
});

Deno.test("SharedHostModules: Deno.exit in a shared Worker moves the others first, then the culprit exits", () => {
  const { modules, workers, notices } = host();
  modules.load(request(1));
  modules.load(request(2));
  const first = workers[0]!;
  first.post({ type: "ready", module: 1, exports: ["a"] });
  first.post({ type: "ready", module: 2, exports: ["b"] });
  notices.length = 0;
  first.post({ type: "exit", module: 1, code: 4 });
  assert.equal(first.terminated, true);
  assert.deepEqual(notices.map((n) => n.type), ["restarted", "exit"]);
  assert.deepEqual(notices[0], {
    type: "restarted",
    worker: 2,
    placement: 1,
    message: "worker_restarted: the call did not finish: file:///root/tools/m1.ts shared its " +
      "Worker and exited with code 4; the module was loaded again, so calling it again works",
  });
  assert.deepEqual(notices[1], { type: "exit", worker: 1, reason: "exited with code 4" });
  // Module 2 is loaded again in a new Worker, as its second placement; its ready is not news.
  const second = workers[1]!;
  assert.deepEqual(second.loads.map((l) => [l.module, l.placement]), [[2, 2]]);
  second.post({ type: "ready", module: 2, exports: ["b"] });
  assert.equal(notices.length, 2);
  // A post from the ended Worker is ignored.
  first.post({ type: "log", module: 2, line: "late" });
  assert.equal(notices.length, 2);
});

Deno.test("SharedHostModules: modules waiting behind a slow import take another Worker after the patience", async () => {
  const { modules, workers, clock } = host();
  modules.load(request(1));
  modules.load(request(2));
  await clock.advance(ADMIT_PATIENCE_MS - 1);
  assert.equal(workers.length, 1, "still patient");
  await clock.advance(1);
  assert.equal(workers.length, 2);
  assert.deepEqual(modules.placements(), [[1], [2]]);
  assert.deepEqual(workers[1]!.loads.map((l) => l.module), [2]);
  // The slow Worker takes no newcomers.
  modules.load(request(3));
  assert.deepEqual(modules.placements(), [[1], [2, 3]]);
});

Deno.test("SharedHostModules: a Worker blocked by an import hands its other modules to a new one", async () => {
  const { modules, workers, clock, notices } = host();
  modules.load(request(1));
  const first = workers[0]!;
  first.post({ type: "ready", module: 1, exports: ["a"] });
  await clock.advance(ADMIT_PATIENCE_MS); // past the patience: a newcomer would wait here
  modules.load(request(2));
  first.answers = false; // module 2's import blocks the Worker's thread
  await clock.advance(PING_MS * 4);
  assert.equal(workers.length, 1, "a second unanswered: not yet blocked");
  await clock.advance(BLOCKED_MS);
  assert.equal(workers.length, 2);
  assert.deepEqual(modules.placements(), [[2], [1]]);
  assert.equal(notices.at(-1)?.type, "restarted");
  assert.match(
    (notices.at(-1) as { message: string }).message,
    /m2\.ts, loaded into its Worker, blocks it/,
  );
});

Deno.test("SharedHostModules.unload() forgets an idle module in place, but a busy one takes its Worker along", () => {
  const { modules, workers, notices } = host();
  for (const id of [1, 2, 3]) modules.load(request(id));
  const first = workers[0]!;
  for (const id of [1, 2, 3]) first.post({ type: "ready", module: id, exports: [] });
  notices.length = 0;
  modules.unload({ worker: 1 });
  assert.deepEqual(first.unloads, [1]);
  assert.equal(first.terminated, false, "the others keep their state");
  modules.unload({ worker: 2, busy: true });
  assert.equal(first.terminated, true);
  assert.deepEqual(notices.map((n) => [n.type, n.worker]), [
    ["exit", 1],
    ["exit", 2],
    ["restarted", 3],
  ]);
  assert.deepEqual(modules.placements(), [[3]]);
  modules.unload({ worker: 3 });
  assert.equal(workers[1]!.terminated, true, "a Worker left with no module ends");
  assert.equal(modules.workerCount, 0);
});

Deno.test("SharedHostModules: a Worker that fails or cannot start takes only its own modules", () => {
  const { modules, workers, notices, refuseWorkers } = host();
  modules.load(request(1));
  modules.load(request(2, { permissions: { net: false } }));
  workers[1]!.fail("Uncaught RangeError: out of stack");
  assert.deepEqual(notices, [{
    type: "exit",
    worker: 2,
    reason: "failed: Uncaught RangeError: out of stack",
  }]);
  assert.deepEqual(modules.placements(), [[1]]);
  refuseWorkers("no more threads");
  modules.load(request(3, { permissions: { net: false } }));
  assert.deepEqual(notices.at(-1), {
    type: "exit",
    worker: 3,
    reason: "cannot start its Worker: Error: no more threads",
  });
  modules.closeAll();
  assert.ok(workers.every((w) => w.terminated));
});
