import assert from "node:assert/strict";
import { join } from "node:path";
import {
  lockHolderPid,
  readServerState,
  serverLockHeld,
  serverLockPath,
  writeServerState,
} from "./server_state.ts";

Deno.test("serverLockHeld() and readServerState() ask the lock, whatever pid server.json names", async () => {
  const dataDir = await Deno.makeTempDir();
  try {
    assert.equal(serverLockHeld(dataDir), false); // never started here
    await writeServerState(dataDir, {
      pid: Deno.pid, // alive, but it holds no lock: a reused pid proves nothing
      host: "127.0.0.1",
      port: 1,
      socket: join(dataDir, "server.sock"),
      root: "/r",
      dataDir,
      version: "0",
      startedAt: "",
    });
    const lock = await Deno.open(serverLockPath(dataDir), {
      read: true,
      write: true,
      create: true,
    });
    assert.equal((await readServerState(dataDir))?.stale, true);
    assert.ok(await lock.tryLock(true));
    try {
      assert.equal(serverLockHeld(dataDir), true);
      assert.equal((await readServerState(dataDir))?.stale, false);
      if (Deno.build.os === "linux") assert.equal(lockHolderPid(dataDir), Deno.pid);
      // Probing takes and drops a shared lock: the holder keeps its own.
      assert.equal(serverLockHeld(dataDir), true);
    } finally {
      lock.close();
    }
    assert.equal(serverLockHeld(dataDir), false);
    assert.equal(lockHolderPid(dataDir), null);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
