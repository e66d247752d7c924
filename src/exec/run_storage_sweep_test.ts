import assert from "node:assert/strict";
import { join } from "node:path";
import { RunStorageSweep, storageDirs, storageKey } from "./run_storage_sweep.ts";
import { storagePaths } from "./runner_process.ts";
import { pollUntil } from "../../test/support/poll_until.ts";

const exists = (path: string) => Deno.stat(path).then(() => true, () => false);

async function denoDirWith(origins: string[]): Promise<string> {
  const denoDir = await Deno.makeTempDir({ prefix: "gateway-sweep-test-" });
  for (const origin of origins) {
    for (const path of storagePaths(denoDir, origin)) {
      await Deno.mkdir(path, { recursive: true });
      await Deno.writeTextFile(join(path, "data"), origin);
    }
  }
  return denoDir;
}

Deno.test("storagePaths() names one entry per storage directory, keyed by the origin", () => {
  const paths = storagePaths("/d", "http://run-a.gateway.invalid");
  const key = storageKey("http://run-a.gateway.invalid");
  assert.deepEqual(paths, storageDirs("/d").map((dir) => join(dir, key)));
  assert.match(key, /^[0-9a-f]{64}$/);
});

Deno.test("RunStorageSweep.flush() removes the finished origins' storage and no other", async () => {
  const done = "http://run-done.gateway.invalid";
  const live = "http://run-live.gateway.invalid";
  const denoDir = await denoDirWith([done, live]);
  try {
    const sweep = new RunStorageSweep(denoDir);
    sweep.add(done);
    assert.equal(sweep.pendingCount, 1);
    await sweep.flush();
    assert.equal(sweep.pendingCount, 0);
    for (const path of storagePaths(denoDir, done)) assert.equal(await exists(path), false, path);
    for (const path of storagePaths(denoDir, live)) assert.equal(await exists(path), true, path);
  } finally {
    await Deno.remove(denoDir, { recursive: true });
  }
});

Deno.test("RunStorageSweep sweeps at once when a batch is full, and after its delay otherwise", async () => {
  const origins = ["http://run-1.gateway.invalid", "http://run-2.gateway.invalid"];
  const denoDir = await denoDirWith(origins);
  try {
    const sweep = new RunStorageSweep(denoDir, { batch: 2, delayMs: 60_000 });
    sweep.add(origins[0]!);
    assert.equal(sweep.pendingCount, 1, "one origin waits for more");
    sweep.add(origins[1]!);
    assert.equal(sweep.pendingCount, 0, "a full batch is swept at once");
    await sweep.flush();
    for (const origin of origins) {
      for (const path of storagePaths(denoDir, origin)) assert.equal(await exists(path), false);
    }
    const timed = new RunStorageSweep(denoDir, { delayMs: 10 });
    const later = "http://run-3.gateway.invalid";
    for (const path of storagePaths(denoDir, later)) await Deno.mkdir(path, { recursive: true });
    timed.add(later);
    await pollUntil(
      "the delayed sweep",
      async () => !(await exists(storagePaths(denoDir, later)[0]!)),
    );
    await timed.flush();
  } finally {
    await Deno.remove(denoDir, { recursive: true });
  }
});

Deno.test("RunStorageSweep.flush() resolves when no run ever created storage", async () => {
  const denoDir = await Deno.makeTempDir({ prefix: "gateway-sweep-test-" });
  try {
    const sweep = new RunStorageSweep(denoDir);
    sweep.add("http://run-x.gateway.invalid");
    await sweep.flush();
    assert.equal(sweep.pendingCount, 0);
    assert.equal(await exists(join(denoDir, "location_data")), false, "nothing is created");
  } finally {
    await Deno.remove(denoDir, { recursive: true });
  }
});

Deno.test("RunStorageSweep hands a storage slot out again only once its storage is gone", async () => {
  const name = (slot: number) => `file:///runner.js?storage=${slot}`;
  const denoDir = await denoDirWith([name(0)]);
  try {
    const sweep = new RunStorageSweep(denoDir, { delayMs: 60_000 });
    assert.equal(sweep.takeSlot(), 0);
    assert.equal(sweep.takeSlot(), 1);
    sweep.release(0, name(0));
    assert.equal(sweep.takeSlot(), 2, "slot 0's storage is not swept yet");
    await sweep.flush();
    for (const path of storagePaths(denoDir, name(0))) assert.equal(await exists(path), false);
    assert.equal(sweep.takeSlot(), 0, "swept: slot 0 is free again");
    assert.equal(sweep.slotCount, 3);
  } finally {
    await Deno.remove(denoDir, { recursive: true });
  }
});

Deno.test("RunStorageSweep never hands out again a slot whose storage it cannot check", async () => {
  const denoDir = await Deno.makeTempDir({ prefix: "gateway-sweep-test-" });
  try {
    // A storage directory that cannot be listed (a file in its place): what it holds is unknown.
    await Deno.writeTextFile(storageDirs(denoDir)[0]!, "not a directory");
    const sweep = new RunStorageSweep(denoDir);
    assert.equal(sweep.takeSlot(), 0);
    sweep.release(0, "file:///runner.js?storage=0");
    await sweep.flush();
    assert.equal(sweep.takeSlot(), 1, "slot 0 may still have storage: it is not reused");
  } finally {
    await Deno.remove(denoDir, { recursive: true });
  }
});
