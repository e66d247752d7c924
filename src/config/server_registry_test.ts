import assert from "node:assert/strict";
import { join } from "node:path";
import {
  liveServerOf,
  registeredServers,
  registerServer,
  serverRegistryDir,
  withdrawServer,
} from "./server_registry.ts";
import { serverLockPath, writeServerState } from "./server_state.ts";

/** A home, a root and a data dir whose lock this process holds, as a running server does. */
async function running() {
  const home = await Deno.makeTempDir();
  const dataDir = join(home, "data");
  await Deno.mkdir(dataDir, { mode: 0o700 });
  const root = join(home, "project", ".gateway");
  await writeServerState(dataDir, {
    pid: Deno.pid,
    host: "127.0.0.1",
    port: 1,
    socket: null,
    root,
    dataDir,
    version: "0",
    startedAt: new Date().toISOString(),
  });
  const lock = await Deno.open(serverLockPath(dataDir), { read: true, write: true, create: true });
  await lock.lock(true);
  const env = { HOME: home };
  return { home, dataDir, root, env, lock };
}

Deno.test("registerServer() lists a running server by root, found from $HOME alone", async () => {
  const s = await running();
  try {
    assert.equal(registerServer({ root: s.root, dataDir: s.dataDir, pid: Deno.pid }, s.env), null);
    const dir = serverRegistryDir(s.env, "linux")!;
    assert.equal(dir, join(s.home, ".local", "state", "gateway", "servers"));
    assert.equal((await Deno.stat(dir)).mode! & 0o777, 0o700);
    const found = registeredServers(s.root, { env: s.env });
    assert.deepEqual(found.map((f) => f.dataDir), [s.dataDir]);
    assert.equal(found[0]!.state.pid, Deno.pid);
    assert.deepEqual(registeredServers(s.root, { env: s.env, except: s.dataDir }), []);
    assert.deepEqual(registeredServers(join(s.home, "other"), { env: s.env }), []);
    // Another pid's withdrawal leaves it; the server's own removes it.
    withdrawServer({ root: s.root, dataDir: s.dataDir, pid: Deno.pid + 1 }, s.env);
    assert.equal(registeredServers(s.root, { env: s.env }).length, 1);
    withdrawServer({ root: s.root, dataDir: s.dataDir, pid: Deno.pid }, s.env);
    assert.deepEqual(registeredServers(s.root, { env: s.env }), []);
  } finally {
    s.lock.close();
    await Deno.remove(s.home, { recursive: true });
  }
});

Deno.test("registeredServers() counts only a held lock, this user's private files and the same root", async () => {
  const s = await running();
  try {
    registerServer({ root: s.root, dataDir: s.dataDir, pid: Deno.pid }, s.env);
    const dir = serverRegistryDir(s.env)!;
    const [entry] = [...Deno.readDirSync(dir)].map((e) => join(dir, e.name));
    // An entry others may write is not trusted.
    await Deno.chmod(entry!, 0o666);
    assert.deepEqual(registeredServers(s.root, { env: s.env }), []);
    await Deno.chmod(entry!, 0o600);
    assert.equal(registeredServers(s.root, { env: s.env }).length, 1);
    // Nor one another user owns (planted where this user's registry is).
    if (Deno.uid() === 0) {
      await Deno.chown(entry!, 65534, 65534);
      assert.deepEqual(registeredServers(s.root, { env: s.env }), []);
      await Deno.chown(entry!, 0, 0);
    }
    // Nor a registry directory others may write.
    await Deno.chmod(dir, 0o777);
    assert.deepEqual(registeredServers(s.root, { env: s.env }), []);
    await Deno.chmod(dir, 0o700);
    // A server.json naming another root is not this root's server.
    assert.equal(liveServerOf(s.dataDir, "/elsewhere"), null);
    // No lock held: the server is gone, whatever its files say.
    s.lock.close();
    assert.equal(liveServerOf(s.dataDir, s.root), null);
    assert.deepEqual(registeredServers(s.root, { env: s.env }), []);
  } finally {
    try {
      s.lock.close();
    } catch {
      // closed above
    }
    await Deno.remove(s.home, { recursive: true });
  }
});

Deno.test("registerServer() drops entries whose data dir is gone, and says why it cannot list", async () => {
  const s = await running();
  try {
    const gone = join(s.home, "gone");
    await Deno.mkdir(gone);
    registerServer({ root: s.root, dataDir: gone, pid: 1 }, s.env);
    await Deno.remove(gone);
    registerServer({ root: s.root, dataDir: s.dataDir, pid: Deno.pid }, s.env);
    assert.equal([...Deno.readDirSync(serverRegistryDir(s.env)!)].length, 1);
    assert.match(
      registerServer({ root: s.root, dataDir: s.dataDir, pid: Deno.pid }, {}) ?? "",
      /no \$HOME/,
    );
  } finally {
    s.lock.close();
    await Deno.remove(s.home, { recursive: true });
  }
});
