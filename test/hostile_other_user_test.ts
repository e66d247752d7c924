/**
 * Another local user (uid 65534, see `support/other_user.ts`) attacks the gateway of the user
 * running the tests, each test written as the attacker's move: take the port of a server that
 * died and wait for the CLI to hand over its token, plant a `.gateway/` in a shared directory
 * above a project, read a sign-in address from another process's command line, flood the port
 * with connections that never finish their headers; and a pid in a stale `server.json` that now
 * belongs to someone else. The gateway must send the attacker nothing, run nothing of theirs and
 * stay usable.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { CLI_RUN_ARGS, createHarness, runCli, withHarness } from "./support/gateway_harness.ts";
import { canActAsOtherUser, otherUserDir, runAsOtherUser } from "./support/other_user.ts";
import { pollUntil } from "./support/poll_until.ts";
import { processAlive } from "./support/run_test_support.ts";
import { lockHolderPid } from "../src/config/server_state.ts";

const ignore = !canActAsOtherUser();

/** Takes 127.0.0.1:PORT once it is free and prints every connection's first bytes. */
const SQUATTER = `
const port = Number(Deno.args[0]);
let listener;
for (let i = 0; ; i++) {
  try {
    listener = Deno.listen({ hostname: "127.0.0.1", port });
    break;
  } catch (error) {
    if (i > 200) throw error;
    await new Promise((r) => setTimeout(r, 25));
  }
}
console.log(JSON.stringify({ listening: port }));
for await (const conn of listener) {
  (async () => {
    const buffer = new Uint8Array(64 * 1024);
    const n = await conn.read(buffer).catch(() => null);
    const received = n === null ? "" : new TextDecoder().decode(buffer.subarray(0, n));
    console.log(JSON.stringify({ received }));
    // Answered as a gateway would, hoping to be believed.
    const body = '{"jsonrpc":"2.0","id":1,"result":{"ok":true,"result":"from the squatter"}}';
    await conn.write(new TextEncoder().encode(
      "HTTP/1.1 200 OK\\r\\ncontent-type: application/json\\r\\ncontent-length: " + body.length +
        "\\r\\n\\r\\n" + body,
    )).catch(() => undefined);
    conn.close();
  })();
}
`;

/** Kills the harness's server with SIGKILL (it leaves server.json behind) and waits. */
async function killServer(pid: number): Promise<void> {
  Deno.kill(pid, "SIGKILL");
  await pollUntil("the killed server to be gone", () => !processAlive(pid));
}

/**
 * What the squatter received from others before the test's own probe: the probe's line comes
 * after every connection made before it.
 */
async function receivedBeforeProbe(
  squatter: Awaited<ReturnType<typeof runAsOtherUser>>,
  port: number,
): Promise<string[]> {
  const probe = await Deno.connect({ hostname: "127.0.0.1", port });
  await probe.write(new TextEncoder().encode("PROBE"));
  const received: string[] = [];
  for (;;) {
    const line = await squatter.next<{ received: string }>();
    if (line.received === "PROBE") break;
    received.push(line.received);
  }
  probe.close();
  return received;
}

Deno.test({
  name:
    "a server killed with -9 leaves its port to another user: the CLI sends that user nothing and starts a new server",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
}, async () => {
  const home = await otherUserDir();
  const gw = await createHarness({ files: { "gateway.json": "{}" } });
  try {
    const { port, pid, token } = await gw.server();
    await killServer(pid);
    // The attacker's move: take the port server.json still names, and answer what comes.
    const squatter = await runAsOtherUser(home, SQUATTER, [String(port)]);
    try {
      assert.deepEqual(await squatter.next(), { listening: port });
      const refused = await gw.cli(["--no-autostart", "exec", "1 + 1"]);
      assert.equal(refused.code, 1, refused.stdout + refused.stderr);
      assert.match(refused.stderr, /No gateway is running for data dir/);
      const ran = await gw.cli(["exec", "1 + 1"]);
      assert.equal(ran.code, 0, ran.stderr);
      assert.equal(ran.stdout, "2\n");
      const status = await gw.cli(["status"]);
      assert.equal(status.code, 0, status.stderr);
      const received = await receivedBeforeProbe(squatter, port);
      assert.deepEqual(received, [], "the squatter was sent something");
      assert.ok(!received.join("").includes(token));
      const now = JSON.parse(await Deno.readTextFile(join(gw.dataDir, "server.json")));
      assert.notEqual(now.pid, pid);
      assert.notEqual(now.port, port);
    } finally {
      await squatter.stop();
    }
  } finally {
    await gw.dispose();
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test({
  name:
    "a stale server.json whose pid now belongs to another process: status says not running, stop signals nobody",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
}, async () => {
  await withHarness({ files: { "gateway.json": "{}" } }, async (gw) => {
    const { pid } = await gw.server();
    await killServer(pid);
    // The pid is reused, as pids are: here by an innocent process of the same user.
    const innocent = new Deno.Command("sleep", { args: ["60"] }).spawn();
    try {
      const file = join(gw.dataDir, "server.json");
      const state = JSON.parse(await Deno.readTextFile(file));
      await Deno.writeTextFile(file, JSON.stringify({ ...state, pid: innocent.pid }));
      const status = await gw.cli(["--no-autostart", "status"]);
      assert.equal(status.code, 3, status.stdout + status.stderr);
      assert.match(status.stdout, /^not running/);
      const stop = await gw.cli(["stop"]);
      assert.equal(stop.code, 0, stop.stderr);
      assert.match(stop.stdout, /no gateway server is running/);
      assert.ok(
        processAlive(innocent.pid),
        "gateway stop signalled a process that is not its server",
      );
    } finally {
      try {
        innocent.kill("SIGKILL");
      } catch {
        // already gone: the failure above says who ended it
      }
      await innocent.status;
    }
  });
});

Deno.test({
  name:
    "a .gateway/ another user plants in a shared directory above a project is refused, naming it and the opt-in",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
}, async () => {
  const base = await Deno.makeTempDir({ prefix: "gateway-shared-" });
  const home = await otherUserDir();
  try {
    // A sticky, world-writable directory, as the temp dir is.
    const shared = join(base, "shared");
    await Deno.mkdir(shared);
    await Deno.chmod(base, 0o755);
    await Deno.chmod(shared, 0o1777);
    const marker = join(shared, "ran-as-victim");
    // The attacker's move: a root above where the victim works, with a tool module whose top
    // level would run in the victim's tool host.
    const planter = await runAsOtherUser(
      home,
      `const dir = ${JSON.stringify(join(shared, ".gateway", "tools"))};
Deno.mkdirSync(dir, { recursive: true });
Deno.writeTextFileSync(dir + "/x.ts", ${
        JSON.stringify(
          `Deno.writeTextFileSync(${
            JSON.stringify(marker)
          }, String(Deno.uid()));\n/** Planted. */\nexport function x(): number {\n  return 1;\n}\n`,
        )
      });
console.log(JSON.stringify({ planted: dir }));`,
    );
    assert.ok((await planter.next()).planted);
    assert.equal((await planter.done()).code, 0);
    const work = join(shared, "victim", "project", "sub");
    await Deno.mkdir(work, { recursive: true });
    const dataDir = join(base, "data");
    const env = {
      GATEWAY_DATA_DIR: dataDir,
      GATEWAY_PORT: "0",
      NO_COLOR: "1",
      HOME: join(base, "victim-home"),
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      ...(Deno.env.get("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : {}),
    };
    const planted = join(shared, ".gateway");
    const refused = await runCli(["exec", "1 + 1"], { env, cwd: work });
    assert.equal(refused.code, 2, refused.stdout + refused.stderr);
    assert.match(refused.stderr, /^error\[Config\]: Refusing root "[^"]*\/shared\/\.gateway"/);
    assert.match(refused.stderr, /belongs to uid 65534/);
    assert.match(refused.stderr, /GATEWAY_SAFE_ROOTS=/);
    assert.equal(
      await Deno.stat(join(dataDir, "server.json")).then(() => true, () => false),
      false,
    );
    assert.equal(await Deno.stat(marker).then(() => true, () => false), false);
    // The user who trusts it says so, and only then is it used.
    const trusted = await runCli(["--no-autostart", "status"], {
      env: { ...env, GATEWAY_SAFE_ROOTS: planted },
      cwd: work,
    });
    assert.match(
      trusted.stdout,
      new RegExp(`root ${planted.replaceAll("/", "\\/")} \\[project\\]`),
    );
  } finally {
    // Had a server started for the planted root, it is the one holding the data dir's lock.
    const started = lockHolderPid(join(base, "data"));
    if (started !== null) Deno.kill(started, "SIGKILL");
    await Deno.remove(base, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test({
  name:
    "gateway ui opens an address another user can read from the opener's command line: it holds no token and is spent once the browser used it",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
}, async () => {
  const home = await otherUserDir();
  await withHarness({ files: { "gateway.json": "{}" } }, async (gw) => {
    const { port, token } = await gw.server();
    // A desktop whose opener records its address and waits, as a browser's launcher lingers.
    const bin = join(gw.cwd, "bin");
    await Deno.mkdir(bin);
    const pidFile = join(gw.cwd, "opener.pid");
    const go = join(gw.cwd, "opener.go");
    await Deno.writeTextFile(
      join(bin, "xdg-open"),
      `#!/bin/sh\necho "$$ $1" > "${pidFile}.tmp" && mv "${pidFile}.tmp" "${pidFile}"\n` +
        `while [ ! -e "${go}" ]; do sleep 0.05; done\n`,
      { mode: 0o755 },
    );
    const ui = new Deno.Command(Deno.execPath(), {
      args: [...CLI_RUN_ARGS, "--root", gw.root, "ui"],
      cwd: gw.cwd,
      clearEnv: true,
      env: {
        GATEWAY_DATA_DIR: gw.dataDir,
        HOME: Deno.env.get("HOME") ?? gw.cwd,
        PATH: `${bin}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`,
        DISPLAY: ":99",
        NO_COLOR: "1",
      },
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    try {
      const [openerPid, url] = (await pollUntil(
        "the opener to be started",
        () => Deno.readTextFile(pidFile).catch(() => null),
      )).trim().split(" ") as [string, string];
      // The browser uses the address at once.
      const browser = await fetch(url!, { redirect: "manual" });
      await browser.body?.cancel();
      assert.equal(browser.status, 303);
      // The attacker's move: read the opener's arguments and use what they hold.
      const attacker = await runAsOtherUser(
        home,
        `const argv = Deno.readTextFileSync("/proc/${openerPid}/cmdline").split("\\0");
const url = argv.find((a) => a.startsWith("http://"));
const secrets = [...url.matchAll(/[0-9a-f]{32,}/g)].map((m) => m[0]);
const tried = [];
for (const secret of secrets) {
  const r = await fetch("http://127.0.0.1:${port}/namespaces", { headers: { authorization: "Bearer " + secret } });
  await r.body?.cancel();
  tried.push(r.status);
}
const reuse = await fetch(url, { redirect: "manual" });
await reuse.body?.cancel();
console.log(JSON.stringify({ url, tried, reuse: reuse.status, cookie: reuse.headers.get("set-cookie") }));`,
      );
      const seen = await attacker.next<
        { url: string; tried: number[]; reuse: number; cookie: string | null }
      >();
      assert.equal(seen.url, url);
      assert.ok(!seen.url.includes(token), "the token is in the opener's command line");
      assert.ok(
        seen.tried.length > 0 && seen.tried.every((status) => status === 401),
        `${seen.tried}`,
      );
      assert.equal(seen.reuse, 401);
      assert.equal(seen.cookie, null);
      await Deno.writeTextFile(go, "");
      const out = await ui.output();
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      assert.equal(new TextDecoder().decode(out.stdout).trim(), url);
    } finally {
      await Deno.writeTextFile(go, "").catch(() => undefined);
      await ui.status;
    }
  });
  await Deno.remove(home, { recursive: true });
});

/** Opens COUNT connections to PORT that never finish their headers, and counts those closed. */
const SLOW_HEADERS = `
const port = Number(Deno.args[0]);
const count = Number(Deno.args[1]);
let closed = 0;
const held = [];
for (let i = 0; i < count; i++) {
  try {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    held.push(conn);
    conn.write(new TextEncoder().encode("GET /health HTTP/1.1\\r\\nHost: 127.0")).catch(() => undefined);
    conn.read(new Uint8Array(64)).then(() => closed++, () => closed++);
  } catch {
    closed++;
  }
}
console.log(JSON.stringify({ opened: count }));
setInterval(() => console.log(JSON.stringify({ closed })), 250);
`;

/**
 * How many TCP connections to `port` process `pid` holds open: its socket descriptors matched
 * against the kernel's table of sockets on that local port (its other descriptors — pipes to
 * runners and tool hosts, unix sockets — come and go with the pool, and are not the flood's).
 */
function heldConnections(pid: number, port: number): number {
  const inodes = new Set<string>();
  for (const entry of Deno.readDirSync(`/proc/${pid}/fd`)) {
    try {
      const target = Deno.readLinkSync(`/proc/${pid}/fd/${entry.name}`);
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode !== undefined) inodes.add(inode);
    } catch {
      // closed while read
    }
  }
  let held = 0;
  for (const table of ["tcp", "tcp6"]) {
    const lines = Deno.readTextFileSync(`/proc/${pid}/net/${table}`).split("\n").slice(1);
    for (const line of lines) {
      const fields = line.trim().split(/\s+/);
      const local = fields[1];
      const state = fields[3];
      const inode = fields[9];
      if (local === undefined || inode === undefined) continue;
      // 0A is LISTEN: the listener itself is not a held connection.
      if (state === "0A") continue;
      if (parseInt(local.split(":")[1] ?? "", 16) === port && inodes.has(inode)) held++;
    }
  }
  return held;
}

Deno.test({
  name:
    "3,000 connections from another user that never finish their headers are capped and timed out, and the gateway stays usable",
  ignore: ignore || Deno.build.os !== "linux",
  sanitizeResources: false,
  sanitizeOps: false,
}, async () => {
  const home = await otherUserDir();
  await withHarness({ files: { "gateway.json": "{}" } }, async (gw) => {
    const { port, pid, token } = await gw.server();
    const before = heldConnections(pid, port);
    const count = 3000;
    // The attacker's move: hold as many connections as it can, each a request never finished.
    const flood = await runAsOtherUser(home, SLOW_HEADERS, [String(port), String(count)]);
    try {
      assert.deepEqual(await flood.next(), { opened: count });
      const during = heldConnections(pid, port);
      // The server keeps at most its cap of connections without a credential (a quarter of its
      // descriptor limit, at most 1,024), not one per attacking connection. A connection it
      // has just closed to make room lets go of its socket once its pending read is cancelled,
      // a turn later: a few may still be in the table when it is read.
      assert.ok(
        during - before <= 1024 + 16,
        `the server holds ${during - before} more connections on its port`,
      );
      const ran = await gw.cli(["exec", "1 + 1"]);
      assert.equal(ran.code, 0, ran.stderr);
      assert.equal(ran.stdout, "2\n");
      const health = await fetch(`http://127.0.0.1:${port}/health`, {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal((await health.json()).pid, pid);
      // And what it still holds, it lets go of once the headers are overdue.
      await pollUntil("the server to close every unfinished connection", async () => {
        const { closed } = await flood.next<{ closed: number }>();
        return closed >= count;
      }, { timeoutMs: 60_000 });
    } finally {
      await flood.stop();
    }
  });
  await Deno.remove(home, { recursive: true });
});
